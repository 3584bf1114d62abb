"""Client onboarding progress per company (decisions.md section 6; paths in docs/decisions/onboarding.md).

A company's onboarding starts from the template named by its client profile, else the default template
(an active one). Milestones are completed by hand or by their `auto_source` (`auto_complete(ctx,
company_id, source)`: `deal_won` from a proposal's acceptance, `project_created` from projects on create;
`first_invoice` from invoices on a company's first invoice), which also starts the onboarding when it has not started.
percent_complete counts the required milestones (all milestones when none is required); the current stage
is the first stage with an open required milestone; completed_at is set when every required one is done.
A started onboarding moves to another active template with `change_template` (PUT; session 26). A milestone given
an auto_source on a template in use is completed where that source already fired (`complete_fired_milestone`;
session 28).
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, case, delete, exists, func, or_, select, union, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, not_found
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import insert_ignore, insert_new, insert_rows, lock_key
from chalicelib.core.models import HistoryEntry
from chalicelib.core.serialize import value_out

from .models import MilestoneCompletion, OnboardingMilestone, OnboardingProgress, OnboardingStage, OnboardingTemplate
from .queries import milestone_out, stages_of

ENTITY = "client_onboarding"
SOURCE_FIRED = "source_fired"
FIRED_BATCH = 5000  # onboardings a statement of complete_fired_milestone takes (7 values each, under 65,535)


def _company(ctx, company_id: str) -> None:
    from chalicelib.areas.deals import service as deals_service

    if not deals_service.company_names(ctx.db, [company_id]):
        raise not_found("Company")


def _progress(db, company_id: str) -> OnboardingProgress | None:
    return db.scalar(select(OnboardingProgress).where(OnboardingProgress.company_id == company_id))


def progress_record(db, progress: OnboardingProgress) -> dict:
    """The progress with its stages, milestones, completions, percentage and current stage (four statements)."""
    return _progress_state(db, progress)[0]


def _progress_state(db, progress: OnboardingProgress) -> tuple[dict, datetime | None]:
    """progress_record's record, and the time of the progress's latest completion (None without one)."""
    template_name = db.scalar(select(OnboardingTemplate.name).where(OnboardingTemplate.id == progress.template_id))
    done = {c.milestone_id: c for c in db.scalars(select(MilestoneCompletion)
                                                  .where(MilestoneCompletion.progress_id == progress.id))}
    stages, required, required_done, total, total_done, current = [], 0, 0, 0, 0, None
    for stage, milestones in stages_of(db, progress.template_id):
        rows = []
        for m in milestones:
            completion = done.get(m.id)
            total += 1
            total_done += completion is not None
            if m.is_required:
                required += 1
                required_done += completion is not None
                if completion is None and current is None:
                    current = {"id": stage.id, "name": stage.name, "stage_type": stage.stage_type}
            rows.append({**milestone_out(m), "completed_at": value_out(completion.created_at) if completion else None,
                         "completed_by": completion.completed_by if completion else None,
                         "source": completion.source if completion else None})
        stages.append({"id": stage.id, "name": stage.name, "stage_type": stage.stage_type, "color": stage.color,
                       "sort_order": stage.sort_order, "milestones": rows})
    base, finished = (required, required_done) if required else (total, total_done)
    percent = int(finished * 100 // base) if base else 0
    # completed_at follows the template as it is now: a required milestone added (or made required, or moved) since
    # the onboarding was completed reopens it, though the stored time is refreshed only by a completion or a reopen
    # (it stayed set beside a percent below 100; client areas audit); one finished by a milestone's removal is
    # completed at its last completion
    completed_at = None
    if base and finished == base:
        completed_at = progress.completed_at or max((c.created_at for c in done.values()), default=None)
    return ({"id": progress.id, "company_id": progress.company_id, "template_id": progress.template_id,
             "template_name": template_name,
             "started_at": value_out(progress.started_at), "completed_at": value_out(completed_at),
             "percent_complete": percent, "current_stage": current, "stages": stages},
            max((c.created_at for c in done.values()), default=None))


def get_progress(ctx, *, company_id: str) -> dict | None:
    _company(ctx, company_id)
    progress = _progress(ctx.db, company_id)
    return progress_record(ctx.db, progress) if progress else None


def _template_for(ctx, company_id: str, template_id: str | None) -> str | None:
    from chalicelib.areas.clients import service as clients_service

    if template_id:
        found = ctx.db.scalar(select(OnboardingTemplate.id).where(OnboardingTemplate.id == template_id,
                                                                  OnboardingTemplate.is_active.is_(True)))
        if found is None:
            raise BadRequest("template_id must be an active onboarding template",
                             details=[{"field": "template_id", "message": "must be an active onboarding template"}])
        return found
    profile = clients_service.client_profile_for_company(ctx.db, company_id)
    if profile and profile.get("onboarding_template_id"):
        found = ctx.db.scalar(select(OnboardingTemplate.id).where(
            OnboardingTemplate.id == profile["onboarding_template_id"], OnboardingTemplate.is_active.is_(True)))
        if found:
            return found
    return ctx.db.scalar(select(OnboardingTemplate.id).where(OnboardingTemplate.is_default.is_(True),
                                                            OnboardingTemplate.is_active.is_(True)).limit(1))


def _begin(ctx, company_id: str, template_id: str) -> tuple[OnboardingProgress, int]:
    """Start the company's onboarding on the template (its lock held): the template's milestones whose auto_source
    already fired are completed (`_complete_fired`, as a move to another template does; session 27) and `started`
    recorded `{ template_id, completed }`; the progress and how many were completed. At most three statements past
    the INSERT whatever the template's size."""
    insert_ignore(ctx.db, OnboardingProgress, {"company_id": company_id, "template_id": template_id,
                                               "started_at": utcnow()}, conflict=("company_id",))
    progress = _progress(ctx.db, company_id)
    completed = _complete_fired(ctx, progress, template_id, _fired_sources(ctx.db, progress))
    history.record(ctx.db, entity_type=ENTITY, entity_id=company_id, action="started", actor_id=ctx.user_id,
                   changes={"template_id": template_id, "completed": completed})
    return progress, completed


def start(ctx, *, company_id: str, template_id: str | None) -> dict:
    _company(ctx, company_id)
    lock_key(ctx.db, ENTITY, company_id)
    if _progress(ctx.db, company_id) is not None:
        raise Conflict("Onboarding has already started for this company")
    chosen = _template_for(ctx, company_id, template_id)
    if chosen is None:
        raise BadRequest("No onboarding template: name one, set one on the client profile, or mark one default",
                         details=[{"field": "template_id", "message": "required: no template is on the client profile "
                                                                 "or marked default"}])
    progress, _completed = _begin(ctx, company_id, chosen)
    return _settled_record(ctx, progress)


def _settled_record(ctx, progress: OnboardingProgress) -> dict:
    """The progress's record after a start or a move, its stored completed_at recomputed: null unless every required
    milestone is done, then the time of its latest completion (the request's own when it completed one)."""
    progress.completed_at = None
    ctx.db.flush()
    record, last = _progress_state(ctx.db, progress)
    if record["completed_at"] is not None:
        progress.completed_at = last
        ctx.db.flush()
        record["completed_at"] = value_out(last)
    return record


def _refresh_completed(ctx, progress: OnboardingProgress, completed=()) -> None:
    """The stored completed_at after a completion or a reopen: null unless finished; set when it is not stored, and
    also when this write completed a milestone that counts (a required one, or any when none is required) and so
    finished it now: the time of that completion (session 29: an onboarding completed, then given a new required
    milestone and completed again by it, kept its first completion time, before the completion that finished it).
    `completed`: the ids of the milestones this write completed (open before it)."""
    record, last = _progress_state(ctx.db, progress)
    finished = record["current_stage"] is None and record["percent_complete"] == 100
    milestones = [m for stage in record["stages"] for m in stage["milestones"]]
    any_required = any(m["is_required"] for m in milestones)
    finishing = any(m["id"] in completed and (m["is_required"] or not any_required) for m in milestones)
    if finished and (progress.completed_at is None or finishing):
        progress.completed_at = last if finishing and last is not None else utcnow()
    elif not finished:
        progress.completed_at = None
    ctx.db.flush()


def _milestone_of(ctx, progress: OnboardingProgress, milestone_id: str) -> OnboardingMilestone:
    milestone = ctx.db.scalar(select(OnboardingMilestone).join(OnboardingStage,
                                                               OnboardingStage.id == OnboardingMilestone.stage_id)
                              .where(OnboardingMilestone.id == milestone_id,
                                     OnboardingStage.template_id == progress.template_id))
    if milestone is None:
        raise not_found("Milestone")
    return milestone


def set_milestone(ctx, *, company_id: str, milestone_id: str, done: bool) -> dict:
    _company(ctx, company_id)
    lock_key(ctx.db, ENTITY, company_id)
    progress = _progress(ctx.db, company_id)
    if progress is None:
        raise not_found("Onboarding")
    milestone = _milestone_of(ctx, progress, milestone_id)
    if done:
        changed = insert_ignore(ctx.db, MilestoneCompletion, {"progress_id": progress.id, "milestone_id": milestone.id,
                                                              "completed_by": ctx.user_id, "source": "manual"},
                                conflict=("progress_id", "milestone_id"))
    else:
        changed = ctx.db.execute(delete(MilestoneCompletion).where(
            MilestoneCompletion.progress_id == progress.id, MilestoneCompletion.milestone_id == milestone.id)).rowcount
    if changed:
        # completing a done milestone (or reopening an open one) is a no-op: no history entry, and the stored
        # completion time is not recomputed (it would take this request's time; session 25)
        history.record(ctx.db, entity_type=ENTITY, entity_id=company_id, action="milestone_completed" if done
                       else "milestone_reopened", actor_id=ctx.user_id, changes={"milestone_id": milestone.id})
        _refresh_completed(ctx, progress, completed=(milestone.id,) if done else ())
    return progress_record(ctx.db, progress)


def auto_complete(ctx, *, company_id: str | None, source: str) -> int:
    """Complete the company's open milestones whose auto_source is `source` (starting the onboarding from
    the profile's or the default template when it has not started, which completes those of the sources that fired
    before too); how many were completed. When the company has no onboarding and no template applies, nothing is
    started: `source_fired` is recorded, for a later start (session 27)."""
    if not company_id:
        return 0
    lock_key(ctx.db, ENTITY, company_id)
    progress, started = _progress(ctx.db, company_id), 0
    if progress is None:
        template_id = _template_for(ctx, company_id, None)
        if template_id is None:
            # nothing to start: noted, so that a later start completes the chosen template's milestones of this
            # source (_begin; session 27)
            history.record(ctx.db, entity_type=ENTITY, entity_id=company_id, action=SOURCE_FIRED,
                           actor_id=ctx.user_id, changes={"source": source})
            return 0
        progress, started = _begin(ctx, company_id, template_id)  # with the sources that fired before this one
    # the open ones (the company's lock is held: none is completed meanwhile), so that what this call completes is
    # known (`_refresh_completed`: a milestone that counts, completed now, finishes the onboarding now)
    ids = list(ctx.db.scalars(select(OnboardingMilestone.id).join(
        OnboardingStage, OnboardingStage.id == OnboardingMilestone.stage_id).where(
        OnboardingStage.template_id == progress.template_id, OnboardingMilestone.auto_source == source,
        ~exists().where(MilestoneCompletion.progress_id == progress.id,
                        MilestoneCompletion.milestone_id == OnboardingMilestone.id))))
    added = insert_ignore(ctx.db, MilestoneCompletion, [{"progress_id": progress.id, "milestone_id": mid,
                                                          "completed_by": ctx.user_id, "source": source}
                                                         for mid in ids], conflict=("progress_id", "milestone_id")) if ids else 0
    if added:
        history.record(ctx.db, entity_type=ENTITY, entity_id=company_id, action="milestone_completed",
                       actor_id=ctx.user_id, changes={"source": source, "milestones": added})
    else:
        # nothing completed (the template in use has no open milestone for this source): noted, so that a move to
        # another template completes that template's milestones of it (change_template; a history INSERT leaves
        # with the request's next statement)
        history.record(ctx.db, entity_type=ENTITY, entity_id=company_id, action=SOURCE_FIRED, actor_id=ctx.user_id,
                       changes={"source": source})
    _refresh_completed(ctx, progress, completed=ids if added else ())
    return added + started


def _fired_sources(db, progress: OnboardingProgress) -> set[str]:
    """The auto sources that already fired for the company (one statement): those of its completions, and those its
    onboarding history names (`milestone_completed` by auto_complete, a completion reopened since or dropped by a
    move included; `source_fired`, a source for which the template in use had no milestone). The onboarding area
    reads no project, invoice or proposal (those areas call it: docs/area-contract.md, one-way links)."""
    source = _history_source()
    return {s for s in db.scalars(union(
        select(MilestoneCompletion.source).where(MilestoneCompletion.progress_id == progress.id,
                                                 MilestoneCompletion.source != "manual"),
        select(source).where(*_firing_entries(progress.company_id), source.is_not(None))))
            if s}


def _history_source():
    """The source an onboarding history entry names (`changes.source`; null when it names none)."""
    return HistoryEntry.changes["source"].as_string()


def _firing_entries(company_id):
    """WHERE clauses of the company's onboarding history entries that name a source that fired (`milestone_completed`
    by auto_complete or `complete_fired_milestone`, `source_fired`). `company_id`: a value or a column."""
    return (HistoryEntry.entity_type == ENTITY, HistoryEntry.entity_id == company_id,
            HistoryEntry.action.in_(("milestone_completed", SOURCE_FIRED)))


def _milestones_of(template_id: str):
    """SELECT of the ids of the template's milestones."""
    return (select(OnboardingMilestone.id).join(OnboardingStage, OnboardingStage.id == OnboardingMilestone.stage_id)
            .where(OnboardingStage.template_id == template_id))


def _complete_fired(ctx, progress: OnboardingProgress, template_id: str, fired: set[str]) -> int:
    """Complete the template's milestones whose auto_source is one of `fired` (`_fired_sources`) for the progress
    (source the auto_source, completed_by the caller; done ones kept): how many were completed. A start (`_begin`)
    and a move to another template (`change_template`) share it; at most two statements whatever the template's
    size (none when nothing fired)."""
    if not fired:
        return 0
    rows = ctx.db.execute(_milestones_of(template_id).add_columns(OnboardingMilestone.auto_source)
                          .where(OnboardingMilestone.auto_source.in_(sorted(fired)))).all()
    if not rows:
        return 0
    return insert_ignore(ctx.db, MilestoneCompletion, [
        {"progress_id": progress.id, "milestone_id": mid, "completed_by": ctx.user_id, "source": source}
        for mid, source in rows], conflict=("progress_id", "milestone_id"))


def _fired_for(source: str):
    """The condition that `source` already fired for the company of the OnboardingProgress row in the statement
    (`_fired_sources`' rule for one source: an auto completion of it, or a `milestone_completed` / `source_fired`
    entry of the company's onboarding history naming it)."""
    return or_(
        exists().where(MilestoneCompletion.progress_id == OnboardingProgress.id, MilestoneCompletion.source == source),
        exists().where(*_firing_entries(OnboardingProgress.company_id), _history_source() == source))


def _finished(template_id: str):
    """The condition that the OnboardingProgress row in the statement is finished on its template, as
    `_refresh_completed` decides it: every required milestone done (every milestone when none is required)."""
    counted = (select(OnboardingMilestone.id).join(OnboardingStage, OnboardingStage.id == OnboardingMilestone.stage_id)
               .where(OnboardingStage.template_id == template_id))
    any_required = exists(counted.where(OnboardingMilestone.is_required.is_(True))).correlate(None)
    still_open = exists(counted.where(
        or_(OnboardingMilestone.is_required.is_(True), ~any_required),
        ~exists().where(MilestoneCompletion.progress_id == OnboardingProgress.id,
                        MilestoneCompletion.milestone_id == OnboardingMilestone.id)
        .correlate(OnboardingProgress, OnboardingMilestone)))  # the UPDATE's row, two levels up
    return and_(exists(counted), ~still_open)


def _counts(milestone_id: str, template_id: str):
    """The condition that the milestone counts toward the template's completion: it is required, or none is."""
    counted = _milestones_of(template_id)
    any_required = exists(counted.where(OnboardingMilestone.is_required.is_(True))).correlate(None)
    return exists(select(OnboardingMilestone.id).where(
        OnboardingMilestone.id == milestone_id, or_(OnboardingMilestone.is_required.is_(True), ~any_required))
    ).correlate(None)


def complete_fired_milestone(ctx, *, milestone_id: str, template_id: str, source: str) -> int:
    """A milestone of `template_id` given the auto_source `source` (created with it, or set or changed to it; session
    28): completed for every onboarding on that template whose source already fired (`_fired_for`), as a start or a
    move completes it (`_complete_fired`: source the auto_source, completed_by the caller; done ones kept), each
    such company's history recording `milestone_completed` `{ source, milestones: 1, milestone_id }` as auto_complete
    does, and their completed_at recomputed as `_refresh_completed` does. How many were completed. Three round trips
    whatever the number of onboardings (the history INSERT leaves with the next statement; two more per
    FIRED_BATCH onboardings past the first, the protocol's bound on a statement's values); one when none qualifies."""
    rows = ctx.db.execute(select(OnboardingProgress.id, OnboardingProgress.company_id).where(
        OnboardingProgress.template_id == template_id, _fired_for(source))).all()
    completed = 0
    for start in range(0, len(rows), FIRED_BATCH):
        completed += _complete_for(ctx, rows[start:start + FIRED_BATCH], milestone_id, template_id, source)
    return completed


def _complete_for(ctx, rows, milestone_id: str, template_id: str, source: str) -> int:
    """complete_fired_milestone for the onboardings `rows` (progress id, company id): three statements."""
    completions = {new_id(): row for row in rows}
    inserted = insert_new(ctx.db, MilestoneCompletion, [
        {"id": completion_id, "progress_id": progress_id, "milestone_id": milestone_id, "completed_by": ctx.user_id,
         "source": source} for completion_id, (progress_id, _company_id) in completions.items()],
        conflict=("progress_id", "milestone_id"))
    completed = [completions[key[0]] for key in inserted]  # a milestone done already (by hand) is kept as it is
    if not completed:
        return 0
    insert_rows(ctx.db, HistoryEntry, [
        {"entity_type": ENTITY, "entity_id": company_id, "action": "milestone_completed", "actor_id": ctx.user_id,
         "changes": {"source": source, "milestones": 1, "milestone_id": milestone_id}}
        for _progress_id, company_id in completed])
    # the milestone completed here was open: when it counts (required, or any when none is required) and the
    # onboarding is finished now, it finished it now (session 29: the stored time of an earlier completion was kept)
    now = utcnow()
    ctx.db.execute(update(OnboardingProgress).where(OnboardingProgress.id.in_([row[0] for row in completed]))
                   .values(completed_at=case((and_(_finished(template_id), _counts(milestone_id, template_id)), now),
                                             (_finished(template_id),
                                              func.coalesce(OnboardingProgress.completed_at, now)), else_=None))
                   .execution_options(synchronize_session=False))
    return len(completed)


def change_template(ctx, *, company_id: str, template_id: str) -> dict:
    """Move a started onboarding to another active template (PUT; docs/decisions/onboarding.md, session 26): the
    completions of milestones outside it are dropped, its milestones whose auto_source already fired are completed,
    completed_at is recomputed and `template_changed` recorded. Naming the template in use changes nothing.
    A fixed number of statements whatever the templates' sizes."""
    _company(ctx, company_id)
    lock_key(ctx.db, ENTITY, company_id)
    progress = _progress(ctx.db, company_id)
    if progress is None:
        raise not_found("Onboarding")
    if template_id == progress.template_id:  # the template in use (active or not): nothing written
        return progress_record(ctx.db, progress)
    chosen = _template_for(ctx, company_id, template_id)
    fired = _fired_sources(ctx.db, progress)  # read before the drop, which takes completions (and their sources)
    dropped = ctx.db.execute(delete(MilestoneCompletion).where(
        MilestoneCompletion.progress_id == progress.id,
        MilestoneCompletion.milestone_id.not_in(_milestones_of(chosen)))).rowcount
    completed = _complete_fired(ctx, progress, chosen, fired)
    before = progress.template_id
    progress.template_id = chosen
    record = _settled_record(ctx, progress)  # finished under the new template: when its last milestone was
    history.record(ctx.db, entity_type=ENTITY, entity_id=company_id, action="template_changed", actor_id=ctx.user_id,
                   changes={"template_id": {"from": before, "to": chosen}, "dropped": dropped, "completed": completed})
    return record
