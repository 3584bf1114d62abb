"""The onboarding area's leaf module: scope (templates are organisation-wide), load-or-404 helpers and the
record builders (a fixed number of statements whatever the number of templates, stages or milestones)."""
from __future__ import annotations

from sqlalchemy import func, select, union

from chalicelib.core.query import visible_row
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


def clients_using(db, template_ids) -> dict[str, int]:
    """`{template_id: companies}` using each template: its progress rows or client profiles naming it (one
    statement)."""
    from chalicelib.areas.clients import service as clients_service

    ids = list(set(template_ids))
    if not ids:
        return {}
    Profile = clients_service.ClientProfile
    users = union(select(OnboardingProgress.template_id.label("tid"), OnboardingProgress.company_id.label("cid"))
                  .where(OnboardingProgress.template_id.in_(ids)),
                  select(Profile.onboarding_template_id, Profile.company_id)
                  .where(Profile.onboarding_template_id.in_(ids))).subquery()
    return dict(db.execute(select(users.c.tid, func.count(func.distinct(users.c.cid))).group_by(users.c.tid)).all())


def template_records(db, templates) -> list[dict]:
    """Template records with stage_count, milestone_count and clients_using: two more statements."""
    templates = list(templates)
    if not templates:
        return []
    ids = [t.id for t in templates]
    counts = {tid: (stages, milestones) for tid, stages, milestones in db.execute(
        select(OnboardingStage.template_id, func.count(func.distinct(OnboardingStage.id)),
               func.count(OnboardingMilestone.id))
        .outerjoin(OnboardingMilestone, OnboardingMilestone.stage_id == OnboardingStage.id)
        .where(OnboardingStage.template_id.in_(ids)).group_by(OnboardingStage.template_id))}
    using = clients_using(db, ids)
    return [{**row_dict(t, TEMPLATE_FIELDS, flags=("is_default", "is_active")),
             "stage_count": counts.get(t.id, (0, 0))[0], "milestone_count": counts.get(t.id, (0, 0))[1],
             "clients_using": using.get(t.id, 0)} for t in templates]


def stage_out(stage: OnboardingStage, milestones: list[dict]) -> dict:
    return {**row_dict(stage, STAGE_FIELDS), "milestones": milestones}


def milestone_out(milestone: OnboardingMilestone) -> dict:
    return row_dict(milestone, MILESTONE_FIELDS, flags=("is_required",))


def stages_of(db, template_id: str) -> list[tuple[OnboardingStage, list[OnboardingMilestone]]]:
    """The template's stages by sort_order, each with its milestones by sort_order (two statements)."""
    stages = db.scalars(select(OnboardingStage).where(OnboardingStage.template_id == template_id)
                        .order_by(OnboardingStage.sort_order, OnboardingStage.created_at, OnboardingStage.id)).all()
    found: dict[str, list] = {}
    if stages:
        for milestone in db.scalars(select(OnboardingMilestone)
                                    .where(OnboardingMilestone.stage_id.in_([s.id for s in stages]))
                                    .order_by(OnboardingMilestone.sort_order, OnboardingMilestone.created_at,
                                              OnboardingMilestone.id)):
            found.setdefault(milestone.stage_id, []).append(milestone)
    return [(stage, found.get(stage.id, [])) for stage in stages]
