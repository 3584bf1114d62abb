"""Relationship actions: list (scoped), create, status change, and the auto-actions of life events. Every
action is mirrored to the action centre (action_items, source_module `relationships`, source_id the action's
id), and completion on either side is reflected on the other through explicit calls."""
from __future__ import annotations

import logging
import re
from datetime import date, timedelta

from sqlalchemy import and_, func, select, update
from sqlalchemy.orm import aliased

from chalicelib.core.errors import bad_field
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_row
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.timeutil import org_today

from .models import LifeEvent, RelationshipAction
from .queries import action_list, action_records, load_action, load_contact, next_occurrence, visible

SOURCE_MODULE = "relationships"
SOURCE_TYPE = "relationship_action"
# the action an auto-action asks for, by life event type (anything else: a call)
AUTO_ACTION_TYPES = {"birthday": "card", "anniversary": "gift", "work_anniversary": "card"}
TITLE_MAX = 500  # relationship_actions.title and action_items.title

log = logging.getLogger("wms.relationships")


def auto_action_type(event_type: str) -> str:
    """The action an event of this type asks for. The type is free text kept as typed (document 2: "for example
    `birthday`, `anniversary`"), so it is read as staff mean it: letter case, surrounding spaces and a space or
    hyphen for an underscore aside ("Birthday", "Work anniversary"; session 32: they asked for a call)."""
    return AUTO_ACTION_TYPES.get(re.sub(r"[\s-]+", "_", (event_type or "").strip().lower()), "call")


def _mirror(ctx, actions: list[dict]) -> list[dict]:
    """The action centre's copies of new actions (their column values; one INSERT whatever their number); answers
    the items as inserted."""
    from chalicelib.areas.action_items import service as action_items_service

    return action_items_service.create_source_items(ctx, [
        {"title": a["title"], "description": a.get("description"), "contact_id": a["contact_id"],
         "company_id": a.get("company_id"), "assigned_to": a.get("assigned_to_user_id"), "due_date": a.get("due_date"),
         "created_by": a.get("created_by"), "source_module": SOURCE_MODULE, "source_type": SOURCE_TYPE,
         "source_id": a["id"]} for a in actions])


def list_actions(ctx) -> list[dict]:
    return action_list(ctx.db, ctx.principal, limit=LIST_LIMIT)


def list_contact_actions(ctx, *, contact_id: str) -> list[dict]:
    load_contact(ctx, contact_id)
    return action_list(ctx.db, ctx.principal, RelationshipAction.contact_id == contact_id, limit=LIST_LIMIT)


def create_action(ctx, *, contact_id: str, data) -> dict:
    """An action on a contact, assigned to the caller unless `assigned_to_user_id` names an active user. One
    assigned to a colleague tells them (`action_item_assigned`, the action centre's notice about the item that
    mirrors it, with its audience rules: session 24). Auto-actions (`create_auto_actions`) tell nobody."""
    from chalicelib.areas.action_items import service as action_items_service
    from chalicelib.areas.deals import service as deals_service

    contact = load_contact(ctx, contact_id)
    values = data.model_dump()
    values["assigned_to_user_id"] = values["assigned_to_user_id"] or ctx.user_id
    if ctx.db.scalar(select(User.id).where(User.id == values["assigned_to_user_id"], User.is_active.is_(True))) is None:
        raise bad_field("assigned_to_user_id", "must be an active user")
    deals_service.check_company(ctx.db, values["company_id"])
    values["company_id"] = values["company_id"] or contact.company_id
    action = RelationshipAction(**values, contact_id=contact_id, status="pending", is_auto=False,
                                created_by=ctx.user_id)
    ctx.db.add(action)
    ctx.db.flush()
    [item] = _mirror(ctx, [{key: getattr(action, key) for key in (
        "id", "title", "description", "contact_id", "company_id", "assigned_to_user_id", "due_date", "created_by")}])
    action_items_service.notify_assigned(ctx, item_id=item["id"], assigned_to=item["assigned_to"],
                                         title=item["title"])
    return action_records(ctx.db, [action])[0]


def _finish(ctx, action: RelationshipAction, status: str) -> None:
    action.status = status
    action.completed_at = utcnow()
    ctx.db.flush()


def update_action(ctx, *, action_id: str, data) -> dict:
    """Status `done` or `dismissed`; the action centre's copy is completed with it (either status takes the
    action off the queue)."""
    from chalicelib.areas.action_items import service as action_items_service

    action = load_action(ctx, action_id)
    lock_row(ctx.db, RelationshipAction, action.id, missing="Relationship action")
    if action.status != data.status:
        _finish(ctx, action, data.status)
        action_items_service.complete_source_items(ctx, source_module=SOURCE_MODULE, source_ids=[action.id])
    return action_records(ctx.db, [action])[0]


def contact_action(ctx, *, action_id: str, contact_id: str) -> RelationshipAction:
    """The relationship action named by a message's `auto_action_id`: one of the contact's actions that the
    caller sees (400 naming the field otherwise)."""
    stmt = select(RelationshipAction).where(RelationshipAction.id == action_id,
                                            RelationshipAction.contact_id == contact_id)
    scope = visible(ctx.principal)
    action = ctx.db.scalar(stmt if scope is None else stmt.where(scope))
    if action is None:
        raise bad_field("auto_action_id", "must be a relationship action of this contact")
    return action


def mark_done(ctx, action_id: str) -> None:
    """A message sent with `auto_action_id` was accepted by the provider: that action is done and its action-centre
    copy completed. The action is locked and re-read first: one dismissed or done meanwhile stays as it is (a retry
    or a second message changes nothing), one deleted meanwhile is no error."""
    from chalicelib.areas.action_items import service as action_items_service

    locked = lock_row(ctx.db, RelationshipAction, action_id)
    if locked is not None and locked.status == "pending":
        _finish(ctx, locked, "done")
        action_items_service.complete_source_items(ctx, source_module=SOURCE_MODULE, source_ids=[locked.id])


def message_accepted(ctx, *, contact_id: str, action_id: str) -> None:
    """After the provider accepted a message sent with `auto_action_id` (service_messages.deliver, in the unit of
    work that records the acceptance, before it writes the message): the action is marked done (`mark_done`).
    Locks the contact's row first (FOR KEY SHARE), then the action, then writes its item: a contact's delete takes
    the contact, then its actions, then their items and messages. A contact deleted meanwhile (its action and
    message with it) locks and changes nothing (session 24: the action was marked done inside the request, before
    the provider was called, and stayed done when the provider refused the message)."""
    from chalicelib.areas.deals import service as deals_service

    if lock_row(ctx.db, deals_service.Contact, contact_id, key_share=True) is None:
        return
    mark_done(ctx, action_id)


def lock_for_action_centre(ctx, *, action_id: str) -> None:
    """The action centre is about to complete an item mirrored from this action: the action's row is locked first
    (`SELECT ... FOR UPDATE`), before the item's. Every path that writes both takes the action, then the item (a
    PATCH here and a message with `auto_action_id` lock the action, then complete the item): a completion in the
    action centre raced by a dismissal here waits for it rather than deadlocking (docs/decisions/relationships.md).
    A missing action (its contact deleted meanwhile) locks nothing."""
    lock_row(ctx.db, RelationshipAction, action_id)


def reassigned_in_action_centre(ctx, *, action_id: str, assigned_to: str) -> None:
    """The action centre is reassigning an item mirrored from this action: the action follows (its assignee
    decides who sees it, `queries.visible`), so the new assignee reaches it here and the old one no longer does
    (session 24; before, only the item changed and the new assignee completed from the action centre an action
    they got 404 on). Locks the action first (`SELECT ... FOR UPDATE`), before the caller writes the item: the one
    order of the two rows (`lock_for_action_centre`). Any active user may take it, as on create; the caller checked
    that. A missing action (its contact deleted meanwhile, its item with it) changes nothing."""
    action = lock_row(ctx.db, RelationshipAction, action_id)
    if action is not None and action.assigned_to_user_id != assigned_to:
        action.assigned_to_user_id = assigned_to
        ctx.db.flush()


def completed_in_action_centre(ctx, *, action_id: str) -> None:
    """The action centre completed an item mirrored from here: the action is done (no call back). The caller locked
    the action first (`lock_for_action_centre`)."""
    ctx.db.execute(update(RelationshipAction).where(RelationshipAction.id == action_id,
                                                    RelationshipAction.status == "pending")
                   .values(status="done", completed_at=utcnow(), updated_at=utcnow())
                   .execution_options(synchronize_session=False))


def contact_deleted(ctx, *, contact_id: str) -> None:
    """The deals area is deleting the contact (its row locked): its actions go with it (ON DELETE CASCADE), and
    their action-centre items here, in two statements whatever their number. The actions are locked first (by
    id), then their items deleted: the order of every path that writes both (`lock_for_action_centre`)."""
    from chalicelib.areas.action_items import service as action_items_service

    ids = list(ctx.db.scalars(select(RelationshipAction.id).where(RelationshipAction.contact_id == contact_id)
                              .order_by(RelationshipAction.id).with_for_update()))
    action_items_service.delete_source_items(ctx, source_module=SOURCE_MODULE, source_ids=ids)


# ---- auto-actions of life events -------------------------------------------------------------------

def occurrence_for(event: LifeEvent, today: date) -> date | None:
    """The occurrence an auto-action is for: a recurring event's first occurrence on or after today (its own
    date when that is today or later, else its next anniversary); a one-off event's date when it is today or
    later; None otherwise (no date, or past)."""
    if event.event_date is None:
        return None
    if event.recurs_annually:
        return next_occurrence(event.event_date, today)
    return event.event_date if event.event_date >= today else None


_ASSIGNEE_ALIASES = (aliased(User, name="event_creator"), aliased(User, name="company_owner"))  # built once


def auto_action_assignees(db, event_ids) -> dict[str, tuple[str | None, str | None]]:
    """`{event_id: (the user its auto-actions go to, the company they are filed under)}` (one statement whatever
    their number). The company is the event's own, else its contact's current one (session 24: an event belongs to
    the person, and follows a contact moved to another company). The user: the event's creator when active, else
    that company's owner when active, else None (nobody who can sign in: the occurrence is skipped). A deactivated
    user is never given work they cannot see (docs/decisions/relationships.md, session 22)."""
    from chalicelib.areas.deals import service as deals_service

    Contact, Company = deals_service.Contact, deals_service.Company
    creator, owner = _ASSIGNEE_ALIASES
    rows = db.execute(
        select(LifeEvent.id, func.coalesce(creator.id, owner.id), func.coalesce(LifeEvent.company_id,
                                                                                Contact.company_id))
        .outerjoin(creator, and_(creator.id == LifeEvent.created_by, creator.is_active.is_(True)))
        .outerjoin(Contact, Contact.id == LifeEvent.contact_id)
        .outerjoin(Company, Company.id == func.coalesce(LifeEvent.company_id, Contact.company_id))
        .outerjoin(owner, and_(owner.id == Company.owner_id, owner.is_active.is_(True)))
        .where(LifeEvent.id.in_(set(event_ids)))).tuples()
    return {event_id: (assignee, company) for event_id, assignee, company in rows}


def _auto_action_row(event: LifeEvent, occurrence: date, names: dict, today: date,
                     target: tuple[str, str | None]) -> dict:
    assignee, company_id = target
    first, last = names.get(event.contact_id, (None, None))
    who = " ".join(part for part in (first, last) if part) or "contact"
    due = max(occurrence - timedelta(days=event.auto_action_days_before), today)
    tail = f", {occurrence.isoformat()})"  # the contact's name is shortened so that the title fits its column
    return {"contact_id": event.contact_id, "life_event_id": event.id, "occurrence_date": occurrence,
            "title": f"{event.title} ({who}"[:TITLE_MAX - len(tail)] + tail,
            "action_type": auto_action_type(event.event_type),
            "description": event.description, "assigned_to_user_id": assignee, "due_date": due,
            "company_id": company_id, "status": "pending", "is_auto": True, "created_by": event.created_by}


def create_auto_actions(ctx, pairs: list[tuple[LifeEvent, date]]) -> tuple[int, int]:
    """Auto-actions for (event, occurrence) pairs that have none yet, mirrored to the action centre: a fixed
    number of statements whatever their number. The caller holds the lock that makes this happen once. Answers
    (created, skipped): an occurrence without an active assignee (`auto_action_assignees`) is skipped, and made
    by a later run (still within its days before) once there is one."""
    from chalicelib.areas.deals import service as deals_service

    if not pairs:
        return 0, 0
    existing = set(ctx.db.execute(select(RelationshipAction.life_event_id, RelationshipAction.occurrence_date).where(
        RelationshipAction.life_event_id.in_({event.id for event, _ in pairs}))).tuples())
    missing = [(event, day) for event, day in pairs if (event.id, day) not in existing]
    if not missing:
        return 0, 0
    targets = auto_action_assignees(ctx.db, [event.id for event, _ in missing])
    skipped = [event.id for event, _ in missing if targets.get(event.id, (None,))[0] is None]
    if skipped:
        log.warning("life event auto-actions skipped: no active assignee",
                    extra={"count": len(skipped), "life_event_ids": skipped[:50]})
    missing = [(event, day) for event, day in missing if targets.get(event.id, (None,))[0] is not None]
    if not missing:
        return 0, len(skipped)
    names = deals_service.contact_names(ctx.db, [event.contact_id for event, _ in missing])
    today = org_today()
    rows = insert_rows(ctx.db, RelationshipAction, [_auto_action_row(e, day, names, today, targets[e.id])
                                                    for e, day in missing])
    _mirror(ctx, rows)
    return len(rows), len(skipped)


def auto_action_for_new_event(ctx, event: LifeEvent) -> None:
    if not event.auto_action_enabled:
        return
    occurrence = occurrence_for(event, org_today())
    if occurrence is not None:
        create_auto_actions(ctx, [(event, occurrence)])


AUTO_ACTIONS_LOCK = "life-event-auto-actions"  # the daily job's key, taken too by an event edit that makes an action


def due_auto_actions(ctx) -> dict:
    """The daily job: for each recurring life event with auto-actions enabled whose next occurrence is within
    its `auto_action_days_before`, the auto-action of that occurrence, once (the unique (event, occurrence)
    pair and a lock on the job make a second run a no-op)."""
    from chalicelib.core.locks import lock_key

    lock_key(ctx.db, AUTO_ACTIONS_LOCK)
    today = org_today()
    events = ctx.db.scalars(select(LifeEvent).where(LifeEvent.recurs_annually.is_(True),
                                                    LifeEvent.auto_action_enabled.is_(True),
                                                    LifeEvent.event_date.is_not(None))).all()
    pairs = []
    for event in events:
        occurrence = next_occurrence(event.event_date, today)
        if (occurrence - today).days <= event.auto_action_days_before:
            pairs.append((event, occurrence))
    created, skipped = create_auto_actions(ctx, pairs)
    # skipped: occurrences due but not made, their creator and the company's owner both deactivated (or none)
    return {"today": today.isoformat(), "considered": len(pairs), "created": created, "skipped": skipped}
