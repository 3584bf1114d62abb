"""Client onboarding templates (document 2; base /api/admin, tool templates): list, detail, create, update
(is_default clears the other defaults), delete (soft-disabled while clients use it, otherwise hard-deleted
with its stages and milestones), duplicate (" (Copy)" with its structure), reorder (stages, and milestones
that may move between stages, atomically), stages and milestones. Progress per company is in
service_progress.py."""
from __future__ import annotations

from sqlalchemy import case, func, select, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, bad_field
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import insert_rows, lock_key, lock_row

from .models import OnboardingMilestone, OnboardingStage, OnboardingTemplate
from .queries import (TEMPLATE_FLAGS, clients_using, load_any_stage, load_milestone, load_stage, load_template, milestone_out,
                      stage_out, stages_of, template_records, template_select)

ENTITY = "onboarding_template"
# decisions.md section 4 (at most 500 rows a list): a template holds at most this many stages, and this many
# milestones in all, so that its detail lists them in full (409 beyond; kept under the template's row lock)
STRUCTURE_LIMIT = 500
NAME_MAX = 200  # onboarding_templates.name
DEFAULT_KEY = "onboarding_template_default"  # the advisory lock of a change of the default template
COPY_SUFFIX = " (Copy)"  # document 2: a duplicate is named with " (Copy)" appended


def _record(ctx, template_id: str, action: str, changes: dict | None = None) -> None:
    history.record(ctx.db, entity_type=ENTITY, entity_id=template_id, action=action, actor_id=ctx.user_id,
                   changes=changes)


def list_templates(ctx) -> list[dict]:
    """Every template (active and disabled), the default first then by name, at most LIST_LIMIT."""
    from chalicelib.core.query import LIST_LIMIT, record_rows

    templates = record_rows(ctx.db, template_select().order_by(
        OnboardingTemplate.is_default.desc(), OnboardingTemplate.is_active.desc(), OnboardingTemplate.name,
        OnboardingTemplate.id).limit(LIST_LIMIT), TEMPLATE_FLAGS)
    return template_records(ctx.db, templates)


def template_record(ctx, template_id: str) -> dict:
    return template_records(ctx.db, [load_template(ctx, template_id)])[0]


def get_template(ctx, *, template_id: str) -> dict:
    template = template_records(ctx.db, [load_template(ctx, template_id)])[0]
    stages = [stage_out(stage, [milestone_out(m) for m in milestones])
              for stage, milestones in stages_of(ctx.db, template_id)]
    return {"template": template, "stages": stages, "clients_using": template["clients_using"]}


def _clear_defaults(ctx, keep_id: str) -> None:
    ctx.db.execute(update(OnboardingTemplate).where(OnboardingTemplate.id != keep_id,
                                                    OnboardingTemplate.is_default.is_(True))
                   .values(is_default=False, updated_at=utcnow()))


def create_template(ctx, *, data) -> dict:
    template = OnboardingTemplate(name=data.name, description=data.description, is_default=False, is_active=True,
                                  created_by=ctx.user_id)
    ctx.db.add(template)
    ctx.db.flush()
    _record(ctx, template.id, "created", {"name": template.name})
    return template_record(ctx, template.id)


def update_template(ctx, *, template_id: str, data) -> dict:
    load_template(ctx, template_id)
    changes = data.changes()
    if changes.get("is_default"):
        # one default at a time: requests making different templates the default run one after the other (each
        # would clear only the defaults committed before it). Taken before the row lock, as every such request does
        lock_key(ctx.db, DEFAULT_KEY)
    template = lock_row(ctx.db, OnboardingTemplate, template_id, missing="Onboarding template")
    if changes.get("is_default") and not changes.get("is_active", template.is_active):
        raise bad_field("is_default", "an inactive template cannot be the default")
    if changes.get("is_active") is False and template.is_default:
        changes["is_default"] = False  # disabled, it is no longer the default (as a soft-disabling delete)
    if changes.get("is_default"):
        _clear_defaults(ctx, template.id)
    diff = _apply(template, changes)  # a template sent back as read keeps its time (session 25, as stages do)
    if diff:
        _record(ctx, template.id, "updated", diff)
    ctx.db.flush()
    return template_record(ctx, template.id)


def delete_template(ctx, *, template_id: str) -> bool:
    """True when soft-disabled (clients use it), False when deleted with its stages and milestones."""
    load_template(ctx, template_id)
    template = lock_row(ctx.db, OnboardingTemplate, template_id, missing="Onboarding template")
    if clients_using(ctx.db, [template.id]).get(template.id, 0):
        if not template.is_active:  # disabled already (a DELETE before, or PATCH is_active false): nothing to write
            # or record (session 31: another `disabled` entry claimed is_active went from 1 to 0, updated_at moved)
            return True
        template.is_active, template.is_default, template.updated_at = False, False, utcnow()
        _record(ctx, template.id, "disabled", {"is_active": {"from": 1, "to": 0}})
        ctx.db.flush()
        return True
    _record(ctx, template.id, "deleted", {"name": {"from": template.name, "to": None}})
    ctx.db.delete(template)  # stages and milestones go with it (ON DELETE CASCADE)
    ctx.db.flush()
    return False


def duplicate_template(ctx, *, template_id: str) -> dict:
    source = load_template(ctx, template_id)
    # " (Copy)" is always appended: the source's name is shortened so that the copy's fits its 200 characters
    copy = OnboardingTemplate(id=new_id(), name=source.name[:NAME_MAX - len(COPY_SUFFIX)] + COPY_SUFFIX,
                              description=source.description,
                              is_default=False, is_active=True, created_by=ctx.user_id)
    ctx.db.add(copy)
    ctx.db.flush()
    stage_rows, milestone_rows = [], []
    for stage, milestones in stages_of(ctx.db, source.id):
        stage_id = new_id()
        stage_rows.append({"id": stage_id, "template_id": copy.id, "name": stage.name, "stage_type": stage.stage_type,
                           "description": stage.description, "color": stage.color, "sort_order": stage.sort_order})
        milestone_rows += [{"stage_id": stage_id, "title": m.title, "description": m.description,
                            "is_required": m.is_required, "auto_source": m.auto_source, "sort_order": m.sort_order}
                           for m in milestones]
    insert_rows(ctx.db, OnboardingStage, stage_rows)
    insert_rows(ctx.db, OnboardingMilestone, milestone_rows)
    _record(ctx, copy.id, "created", {"name": copy.name, "duplicated_from": source.id})
    ctx.db.flush()
    return template_record(ctx, copy.id)


def _repeats(ids: list[str]) -> list[int]:
    """The positions of the ids named before in `ids` (one pass; a reorder at the caps names 2,500 ids)."""
    seen: set[str] = set()
    repeats = []
    for index, item_id in enumerate(ids):
        if item_id in seen:
            repeats.append(index)
        seen.add(item_id)
    return repeats


def reorder(ctx, *, template_id: str, data) -> None:
    """Every id must belong to the template and be named once (400 naming the entry otherwise, before any write);
    one UPDATE for the stages and one for the milestones (stage and order together), under the template's row lock."""
    load_template(ctx, template_id)
    # an id named twice would be reduced to its last entry by the dicts below: refused, as core.locks.reorder does
    repeated = [f"{key}.{i}.id" for key, entries in (("stages", data.stages), ("milestones", data.milestones))
                for i in _repeats([entry.id for entry in entries])]
    if repeated:
        raise BadRequest(f"{repeated[0].split('.')[0]} names an id twice",
                         details=[{"field": field, "message": "duplicate id"} for field in repeated])
    lock_row(ctx.db, OnboardingTemplate, template_id, missing="Onboarding template")
    stage_ids = set(ctx.db.scalars(select(OnboardingStage.id).where(OnboardingStage.template_id == template_id)))
    milestone_ids = set(ctx.db.scalars(select(OnboardingMilestone.id).join(
        OnboardingStage, OnboardingStage.id == OnboardingMilestone.stage_id).where(
        OnboardingStage.template_id == template_id)))
    details = [{"field": f"stages.{i}.id", "message": "is not a stage of this template"}
               for i, entry in enumerate(data.stages) if entry.id not in stage_ids]
    for i, entry in enumerate(data.milestones):
        if entry.id not in milestone_ids:
            details.append({"field": f"milestones.{i}.id", "message": "is not a milestone of this template"})
        if entry.stage_id not in stage_ids:
            details.append({"field": f"milestones.{i}.stage_id", "message": "is not a stage of this template"})
    if details:
        raise BadRequest("Invalid reorder", details=details)
    now = utcnow()
    if data.stages:
        orders = {entry.id: entry.sort_order for entry in data.stages}
        ctx.db.execute(update(OnboardingStage).where(OnboardingStage.id.in_(list(orders)))
                       .values(sort_order=case(orders, value=OnboardingStage.id), updated_at=now))
    if data.milestones:
        orders = {entry.id: entry.sort_order for entry in data.milestones}
        stages = {entry.id: entry.stage_id for entry in data.milestones}
        ctx.db.execute(update(OnboardingMilestone).where(OnboardingMilestone.id.in_(list(orders)))
                       .values(sort_order=case(orders, value=OnboardingMilestone.id),
                               stage_id=case(stages, value=OnboardingMilestone.id), updated_at=now))
    _record(ctx, template_id, "reordered", {"stages": len(data.stages), "milestones": len(data.milestones)})
    ctx.db.flush()
    ctx.db.expire_all()


# ---------------------------------------------------------------- stages and milestones

def _next_order(ctx, column, where) -> int:
    from sqlalchemy import func

    highest = ctx.db.scalar(select(func.max(column)).where(where))
    return 0 if highest is None else highest + 1


def _check_room(ctx, template_id: str, what: str) -> None:
    """409 when the template already holds STRUCTURE_LIMIT stages (or milestones); the caller holds its row lock."""
    if what == "stages":
        stmt = select(func.count()).select_from(OnboardingStage).where(OnboardingStage.template_id == template_id)
    else:
        stmt = select(func.count()).select_from(OnboardingMilestone).join(
            OnboardingStage, OnboardingStage.id == OnboardingMilestone.stage_id).where(
            OnboardingStage.template_id == template_id)
    if (ctx.db.scalar(stmt) or 0) >= STRUCTURE_LIMIT:
        raise Conflict(f"A template holds at most {STRUCTURE_LIMIT} {what}")


def create_stage(ctx, *, template_id: str, data) -> dict:
    load_template(ctx, template_id)
    lock_row(ctx.db, OnboardingTemplate, template_id, missing="Onboarding template")
    _check_room(ctx, template_id, "stages")
    stage = OnboardingStage(template_id=template_id, name=data.name, stage_type=data.stage_type,
                            description=data.description, color=data.color,
                            sort_order=_next_order(ctx, OnboardingStage.sort_order,
                                                   OnboardingStage.template_id == template_id))
    ctx.db.add(stage)
    ctx.db.flush()
    _record(ctx, template_id, "stage_created", {"stage_id": stage.id, "name": stage.name})
    return stage_out(stage, [])


def _stage_milestones(ctx, stage_id: str) -> list[dict]:
    return [milestone_out(m) for m in ctx.db.scalars(
        select(OnboardingMilestone).where(OnboardingMilestone.stage_id == stage_id)
        .order_by(OnboardingMilestone.sort_order, OnboardingMilestone.created_at, OnboardingMilestone.id))]


def _apply(row, changes: dict) -> dict:
    """Sets the sent fields that differ from the stored ones and bumps updated_at, only when one does; answers the
    diff (`{field: {"from", "to"}}`, core.history.diff), empty for a no-op save-back (session 25)."""
    diff = history.diff({key: getattr(row, key) for key in changes}, changes)
    if diff:
        for key in diff:
            setattr(row, key, changes[key])  # the value as sent (the diff holds its JSON form)
        row.updated_at = utcnow()
    return diff


def update_stage(ctx, *, template_id: str, stage_id: str, data) -> dict:
    load_template(ctx, template_id)
    stage = load_stage(ctx, template_id, stage_id)
    diff = _apply(stage, data.changes())
    if diff:
        ctx.db.flush()
        _record(ctx, template_id, "stage_updated", {"stage_id": stage.id, **diff})
    return stage_out(stage, _stage_milestones(ctx, stage.id))


def delete_stage(ctx, *, template_id: str, stage_id: str) -> None:
    load_template(ctx, template_id)
    stage = load_stage(ctx, template_id, stage_id)
    _record(ctx, template_id, "stage_deleted", {"stage_id": stage.id, "name": stage.name})
    ctx.db.delete(stage)
    ctx.db.flush()


def create_milestone(ctx, *, stage_id: str, data) -> dict:
    stage = load_any_stage(ctx, stage_id)
    lock_row(ctx.db, OnboardingTemplate, stage.template_id, missing="Onboarding template")  # the template's cap and the stage's next sort_order
    _check_room(ctx, stage.template_id, "milestones")
    milestone = OnboardingMilestone(stage_id=stage.id, title=data.title, description=data.description,
                                    is_required=data.is_required, auto_source=data.auto_source,
                                    sort_order=_next_order(ctx, OnboardingMilestone.sort_order,
                                                           OnboardingMilestone.stage_id == stage.id))
    ctx.db.add(milestone)
    ctx.db.flush()
    _record(ctx, stage.template_id, "milestone_created", {"milestone_id": milestone.id, "title": milestone.title})
    _complete_where_fired(ctx, milestone, stage.template_id)
    return milestone_out(milestone)


def _complete_where_fired(ctx, milestone: OnboardingMilestone, template_id: str) -> None:
    """A milestone given an auto_source (on create, or set or changed by an update) is completed for the companies
    following its template whose source already fired (service_progress; session 28): that source fires once per
    company (first_invoice, deal_won), so it would stay open for good."""
    if milestone.auto_source:
        from .service_progress import complete_fired_milestone

        complete_fired_milestone(ctx, milestone_id=milestone.id, template_id=template_id,
                                 source=milestone.auto_source)


def update_milestone(ctx, *, milestone_id: str, data) -> dict:
    milestone = load_milestone(ctx, milestone_id)
    diff = _apply(milestone, data.changes())
    if diff:
        ctx.db.flush()
        stage = ctx.db.get(OnboardingStage, milestone.stage_id)
        _record(ctx, stage.template_id, "milestone_updated", {"milestone_id": milestone.id, **diff})
        if "auto_source" in diff:
            _complete_where_fired(ctx, milestone, stage.template_id)
    return milestone_out(milestone)


def delete_milestone(ctx, *, milestone_id: str) -> None:
    milestone = load_milestone(ctx, milestone_id)
    stage = ctx.db.get(OnboardingStage, milestone.stage_id)
    _record(ctx, stage.template_id, "milestone_deleted", {"milestone_id": milestone.id, "title": milestone.title})
    ctx.db.delete(milestone)
    ctx.db.flush()


# ---------------------------------------------------------------- for other areas (proposals, projects)

def auto_complete(ctx, *, company_id: str | None, source: str) -> int:
    """Complete the company's onboarding milestones whose auto_source is `source` (service_progress)."""
    from .service_progress import auto_complete as complete

    return complete(ctx, company_id=company_id, source=source)


def template_disabled(db, template_id: str) -> bool:
    """True when the template exists and is disabled (clients: a profile naming it is refused; session 27). One
    statement; the row is read FOR SHARE, so that a disable in flight (which holds its row lock) is waited for and
    seen, and one that comes after waits for the caller's commit. A missing template is False: the profile's
    foreign key answers it (400 naming the field)."""
    return db.scalar(select(OnboardingTemplate.is_active).where(OnboardingTemplate.id == template_id)
                     .with_for_update(read=True)) is False


def company_progress(ctx, *, company_id: str) -> dict | None:
    """The company's onboarding progress record, or None before it starts (service_progress; the portal)."""
    from .service_progress import get_progress

    return get_progress(ctx, company_id=company_id)
