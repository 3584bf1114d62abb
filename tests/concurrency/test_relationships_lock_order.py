"""A relationship action and its action-centre item are written together by three paths, and all three take the two
rows in one order: the action, then the item (docs/decisions/relationships.md, "Relationship actions").

- PATCH /api/relationships/relationship-actions/:id locks the action, then completes its item;
- a message sent with `auto_action_id` (service_actions.mark_done) locks the action, then completes its item;
- POST /api/action-items/:id/complete, for an item mirrored from an action, locks the action (relationships
  service `lock_for_action_centre`) before its own row, then marks the action done.

The completion used to lock the item first: run against a PATCH or a message, each held the row the other needed
next and Postgres aborted one with a deadlock (40P01, a 500; audit 9). Here one side runs through the real service
function in a thread with a connection of its own (committed data), paused once it holds its rows; the other goes
through the API and waits for it. Both must succeed and leave one consistent state (a 409 would not do): the action
done or dismissed by whichever came last, the item completed.
"""
import os
import secrets

import pytest
from sqlalchemy import insert, select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.deals.models import Contact
from chalicelib.areas.relationships.models import RelationshipAction, RelationshipProfile
from chalicelib.core.models import User
from tests.concurrency.conftest import committed_rows, first_side, race

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                reason="row locks between two connections need Postgres")

PHONE = "+61412345678"


def _forget(conn, row) -> None:
    from sqlalchemy import delete

    exec_id, contact_id, action_id, item_id = row
    conn.execute(delete(ActionItem).where(ActionItem.id == item_id))
    conn.execute(delete(RelationshipAction).where(RelationshipAction.id == action_id))
    conn.execute(delete(RelationshipProfile).where(RelationshipProfile.contact_id == contact_id))
    conn.execute(delete(Contact).where(Contact.id == contact_id))
    conn.execute(delete(User).where(User.id == exec_id))


@pytest.fixture(scope="module")
def made(engine):
    """The committed rows of this module's tests (`committed_rows`)."""
    yield from committed_rows(engine, _forget)


def _committed(engine, made) -> tuple[str, str, str, str]:
    """(executive id, contact id, pending action id, its action-centre item id), committed by another connection."""
    with engine.connect() as other:
        exec_id = other.execute(insert(User).values(email=f"order-{secrets.token_hex(4)}@agency.test", name="Racer",
                                                    access_level="executive", is_active=True)
                                .returning(User.id)).scalar_one()
        contact_id = other.execute(insert(Contact).values(first_name="Raced", phone=PHONE)
                                   .returning(Contact.id)).scalar_one()
        other.execute(insert(RelationshipProfile).values(contact_id=contact_id, phone_number=PHONE, interests=[],
                                                         sms_opt_in=True))
        action_id = other.execute(insert(RelationshipAction).values(
            contact_id=contact_id, title="Send a card", action_type="card", status="pending", is_auto=False,
            assigned_to_user_id=exec_id, created_by=exec_id).returning(RelationshipAction.id)).scalar_one()
        item_id = other.execute(insert(ActionItem).values(
            title="Send a card", contact_id=contact_id, assigned_to=exec_id, source_module="relationships",
            source_type="relationship_action", source_id=action_id, is_completed=False, urgency="normal")
            .returning(ActionItem.id)).scalar_one()
        other.commit()
    made.append((exec_id, contact_id, action_id, item_id))
    return exec_id, contact_id, action_id, item_id


def _complete_item(item_id):
    def work(ctx):
        from chalicelib.areas.action_items import service as action_items_service

        action_items_service.complete_item(ctx, item_id=item_id)
    return work


def _dismiss_action(action_id):
    def work(ctx):
        from chalicelib.areas.relationships import service_actions
        from chalicelib.areas.relationships.schemas import ActionUpdate
        from chalicelib.core.schemas import model_of

        service_actions.update_action(ctx, action_id=action_id,
                                      data=model_of(ActionUpdate).model_validate({"status": "dismissed"}))
    return work


def _message_done(action_id):
    def work(ctx):
        from chalicelib.areas.relationships import service_actions

        service_actions.mark_done(ctx, action_id)
    return work


def _state(db, action_id, item_id):
    db.expire_all()
    action = db.execute(select(RelationshipAction.status, RelationshipAction.completed_at)
                        .where(RelationshipAction.id == action_id)).one()
    item = db.scalar(select(ActionItem.is_completed).where(ActionItem.id == item_id))
    return action.status, action.completed_at is not None, item


def test_a_dismissal_that_waited_for_the_items_completion_leaves_the_action_dismissed(api, db, engine, made,
                                                                                     monkeypatch, exec_user):
    from chalicelib.areas.relationships import service as relationships_service

    exec_id, _, action_id, item_id = _committed(engine, made)
    first = first_side(engine, exec_id, _complete_item(item_id), monkeypatch, relationships_service,
                        "completed_in_action_centre")
    answer, outcomes = race(first, lambda: api.patch(f"/api/relationships/relationship-actions/{action_id}",
                                                      as_=exec_user, json={"status": "dismissed"}))
    assert (answer.status, outcomes) == (200, ["committed"]), (answer, outcomes)
    assert answer.json["action"]["status"] == "dismissed", answer.json
    assert _state(db, action_id, item_id) == ("dismissed", True, True)


def test_a_completion_that_waited_for_the_actions_dismissal_changes_nothing(api, db, engine, made, monkeypatch,
                                                                            exec_user):
    from chalicelib.areas.action_items import service as action_items_service

    exec_id, _, action_id, item_id = _committed(engine, made)
    first = first_side(engine, exec_id, _dismiss_action(action_id), monkeypatch, action_items_service,
                        "complete_source_items")
    answer, outcomes = race(first, lambda: api.post(f"/api/action-items/{item_id}/complete", as_=exec_user))
    assert (answer.status, answer.json, outcomes) == (200, {"ok": True}, ["committed"]), (answer, outcomes)
    assert _state(db, action_id, item_id) == ("dismissed", True, True)  # not turned into done


def test_a_message_that_waited_for_the_items_completion_leaves_the_action_done(api, db, engine, made,
                                                                              monkeypatch, exec_user):
    from chalicelib.areas.relationships import service as relationships_service

    exec_id, contact_id, action_id, item_id = _committed(engine, made)
    first = first_side(engine, exec_id, _complete_item(item_id), monkeypatch, relationships_service,
                        "completed_in_action_centre")
    answer, outcomes = race(first, lambda: api.post(
        f"/api/relationships/contacts/{contact_id}/messages", as_=exec_user,
        json={"channel": "sms", "body": "Happy birthday", "auto_action_id": action_id}))
    assert (answer.status, outcomes) == (201, ["committed"]), (answer, outcomes)
    assert _state(db, action_id, item_id) == ("done", True, True)


def test_a_completion_that_waited_for_a_message_changes_nothing(api, db, engine, made, monkeypatch, exec_user):
    from chalicelib.areas.action_items import service as action_items_service

    exec_id, _, action_id, item_id = _committed(engine, made)
    first = first_side(engine, exec_id, _message_done(action_id), monkeypatch, action_items_service,
                        "complete_source_items")
    answer, outcomes = race(first, lambda: api.post(f"/api/action-items/{item_id}/complete", as_=exec_user))
    assert (answer.status, answer.json, outcomes) == (200, {"ok": True}, ["committed"]), (answer, outcomes)
    assert _state(db, action_id, item_id) == ("done", True, True)


def _message_with_action(contact_id, action_id):
    def work(ctx):
        from chalicelib.areas.relationships import service_messages
        from chalicelib.areas.relationships.schemas import MessageCreate
        from chalicelib.core.schemas import model_of

        service_messages.send_message(ctx, contact_id=contact_id, data=model_of(MessageCreate).model_validate(
            {"channel": "sms", "body": "Happy birthday", "auto_action_id": action_id}))
    return work


def test_a_contact_delete_raced_by_a_message_marking_its_action_done(api, db, engine, made, monkeypatch, exec_user):
    """A contact's delete locks the contact, then its actions; a message sent with `auto_action_id` locked the
    action (mark_done), then the contact (its row's key, at the message's INSERT): crosswise, and Postgres aborted
    the delete with a deadlock (409; review of this session's changes, which had written the order down as every
    path's). The message now takes the contact first: the delete waits for it, then removes the contact, its done
    action and its item."""
    from chalicelib.areas.relationships import service_messages

    monkeypatch.setattr(service_messages, "deliver", lambda message_id: None)  # no provider after the commit
    exec_id, contact_id, action_id, item_id = _committed(engine, made)
    # paused between mark_done (the action locked) and the message's INSERT (the contact's key)
    first = first_side(engine, exec_id, _message_with_action(contact_id, action_id), monkeypatch, service_messages,
                        "RelationshipMessage")
    answer, outcomes = race(first, lambda: api.delete(f"/api/deals/contacts/{contact_id}", as_=exec_user))
    assert (answer.status, outcomes) == (200, ["committed"]), (answer.status, answer.json, outcomes)
    db.expire_all()
    assert db.get(Contact, contact_id) is None and db.get(ActionItem, item_id) is None
