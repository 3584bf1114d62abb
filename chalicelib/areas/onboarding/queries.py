"""The onboarding area's leaf module: scope (templates are organisation-wide), load-or-404 helpers and the
record builders (a fixed number of statements whatever the number of templates, stages or milestones)."""
from __future__ import annotations

from sqlalchemy import func, select, union

from chalicelib.core.lookup import ids_read
from chalicelib.core.query import record_sets, visible_row
from chalicelib.core.serialize import row_dict

from .models import OnboardingMilestone, OnboardingProgress, OnboardingStage, OnboardingTemplate

TEMPLATE_FIELDS = ("id", "name", "description", "is_default", "is_active", "created_by", "created_at", "updated_at")
STAGE_FIELDS = ("id", "template_id", "name", "stage_type", "description", "color", "sort_order")
MILESTONE_FIELDS = ("id", "stage_id", "title", "description", "is_required", "auto_source", "sort_order")


def visible(principal):
    """Templates are organisation-wide: every holder of templates:view sees them all (None)."""
    return None


def load_template(ctx, template_id: str) -> OnboardingTemplate:
    return visible_row(ctx.db, OnboardingTemplate, template_id, visible(ctx.principal), "Onboarding template")


def load_stage(ctx, template_id: str, stage_id: str) -> OnboardingStage:
    return visible_row(ctx.db, OnboardingStage, stage_id, OnboardingStage.template_id == template_id, "Stage")


def load_any_stage(ctx, stage_id: str) -> OnboardingStage:
    return visible_row(ctx.db, OnboardingStage, stage_id, None, "Stage")


def load_milestone(ctx, milestone_id: str) -> OnboardingMilestone:
    return visible_row(ctx.db, OnboardingMilestone, milestone_id, None, "Milestone")


def _using_statement(template_in):
    """Rows (template_id, n): the companies using each template, through its progress rows or client profiles."""
    from chalicelib.areas.clients import service as clients_service

    Profile = clients_service.ClientProfile
    users = union(select(OnboardingProgress.template_id.label("tid"), OnboardingProgress.company_id.label("cid"))
                  .where(template_in(OnboardingProgress.template_id)),
                  select(Profile.onboarding_template_id, Profile.company_id)
                  .where(template_in(Profile.onboarding_template_id))).subquery("template_users")
    return select(users.c.tid.label("template_id"), func.count(func.distinct(users.c.cid)).label("n")).group_by(users.c.tid)


def _counts_statement(template_in):
    """Rows (template_id, stages, milestones) of the templates with stages."""
    return (select(OnboardingStage.template_id, func.count(func.distinct(OnboardingStage.id)).label("stages"),
                   func.count(OnboardingMilestone.id).label("milestones"))
            .outerjoin(OnboardingMilestone, OnboardingMilestone.stage_id == OnboardingStage.id)
            .where(template_in(OnboardingStage.template_id)).group_by(OnboardingStage.template_id))


def clients_using(db, template_ids) -> dict[str, int]:
    """`{template_id: companies}` using each template: its progress rows or client profiles naming it (one
    statement)."""
    rows = record_sets(db, using=ids_read(db, _using_statement, "onboarding_using_ids", template_ids))["using"]
    return {row["template_id"]: row["n"] for row in rows}


def template_select():
    """The template's own columns, for records read by core.query.record_rows (flags TEMPLATE_FLAGS)."""
    return select(*(getattr(OnboardingTemplate, name) for name in TEMPLATE_FIELDS))


TEMPLATE_FLAGS = ("is_default", "is_active")


def template_records(db, templates) -> list[dict]:
    """Template records with stage_count, milestone_count and clients_using: one more statement for them all
    (record_sets of two templates). `templates`: OnboardingTemplate rows or template_select() records."""
    records = [t if isinstance(t, dict) else row_dict(t, TEMPLATE_FIELDS, flags=TEMPLATE_FLAGS) for t in templates]
    if not records:
        return []
    ids = [r["id"] for r in records]
    sets = record_sets(db, counts=ids_read(db, _counts_statement, "onboarding_count_ids", ids),
                       using=ids_read(db, _using_statement, "onboarding_using_ids", ids))
    counts = {row["template_id"]: (row["stages"], row["milestones"]) for row in sets["counts"]}
    using = {row["template_id"]: row["n"] for row in sets["using"]}
    for record in records:
        record["stage_count"], record["milestone_count"] = counts.get(record["id"], (0, 0))
        record["clients_using"] = using.get(record["id"], 0)
    return records


def stage_out(stage: OnboardingStage, milestones: list[dict]) -> dict:
    return {**row_dict(stage, STAGE_FIELDS), "milestones": milestones}


def milestone_out(milestone: OnboardingMilestone) -> dict:
    return row_dict(milestone, MILESTONE_FIELDS, flags=("is_required",))


def stages_of(db, template_id: str) -> list[tuple[OnboardingStage, list[OnboardingMilestone]]]:
    """The template's stages by sort_order, each with its milestones by sort_order: one statement (the stages outer
    joined to their milestones), so that the structure is one state of it. Two statements (the stages, then their
    milestones) read, under READ COMMITTED, a reorder committed between them half: a duplicate copied the old stage
    order with the new milestone placement (session 23, docs/decisions/onboarding.md)."""
    rows = db.execute(select(OnboardingStage, OnboardingMilestone)
                      .outerjoin(OnboardingMilestone, OnboardingMilestone.stage_id == OnboardingStage.id)
                      .where(OnboardingStage.template_id == template_id)
                      .order_by(OnboardingStage.sort_order, OnboardingStage.created_at, OnboardingStage.id,
                                OnboardingMilestone.sort_order, OnboardingMilestone.created_at,
                                OnboardingMilestone.id)).all()
    found: dict[str, tuple[OnboardingStage, list]] = {}
    for stage, milestone in rows:
        milestones = found.setdefault(stage.id, (stage, []))[1]
        if milestone is not None:
            milestones.append(milestone)
    return list(found.values())
