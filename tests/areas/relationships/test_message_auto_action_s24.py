"""A message sent with `auto_action_id` marks that action done (and completes its action-centre item) only once the
provider has accepted the message (session 24; docs/decisions/relationships.md). The action used to be marked done
inside the request, before the provider was called: a message the provider refused ended `failed` while its action
was done and its item completed, so the reminder vanished and the contact was never reached.

Through HTTP against Postgres: the sandbox provider (Twilio's magic numbers are refused) and the live Twilio adapter
(`responses`, no network)."""
import logging

import pytest
import requests
import responses
from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.relationships.models import RelationshipAction, RelationshipMessage
from chalicelib.providers.sms.sandbox import SandboxSms
from tests.areas.deals.factories import make_contact

BASE = "/api/relationships"
SID = "AC" + "1" * 32
TWILIO_URL = f"https://api.twilio.com/2010-04-01/Accounts/{SID}/Messages.json"
GOOD, REFUSED = "+61412345678", "+15005550001"  # the sandbox refuses Twilio's invalid number (21211)


def _contact_with_action(api, db, user, phone=GOOD) -> tuple[str, dict]:
    contact = make_contact(db, phone=phone)
    assert api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=user, json={"sms_opt_in": True}).status == 200
    made = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=user,
                    json={"title": "Birthday text", "action_type": "sms"})
    assert made.status == 201, made
    return contact.id, made.json["action"]


def _send(api, user, contact_id, action_id, body="Happy birthday!"):
    sent = api.post(f"{BASE}/contacts/{contact_id}/messages", as_=user,
                    json={"channel": "sms", "body": body, "auto_action_id": action_id})
    assert sent.status == 201, sent
    return sent.json["message"]


def _state(db, action_id) -> tuple:
    """(the action's status, its completed_at, its item's is_completed), as committed by the requests."""
    db.expire_all()
    row = db.execute(select(RelationshipAction.status, RelationshipAction.completed_at)
                     .where(RelationshipAction.id == action_id)).one_or_none()
    item = db.scalar(select(ActionItem.is_completed).where(ActionItem.source_module == "relationships",
                                                           ActionItem.source_id == action_id))
    return (row.status, row.completed_at, item) if row else (None, None, item)


def _message(db, message_id):
    db.expire_all()
    return db.get(RelationshipMessage, message_id)


@pytest.fixture
def no_callback_failure(caplog):
    """Fails the test when an after-commit callback (the delivery) raised: the unit of work logs and swallows it."""
    caplog.set_level(logging.ERROR, logger="wms.db")
    yield
    failed = [r for r in caplog.records if r.name == "wms.db" and "after-commit callback failed" in r.getMessage()]
    assert not failed, failed[0].exc_text


@pytest.fixture
def during_send(monkeypatch):
    """`during_send(hook)`: the sandbox provider runs `hook()` when it is handed a message (after the request that
    recorded the message committed, before it answers), then sends as usual."""
    def install(hook):
        original = SandboxSms.send

        def send(self, **kwargs):
            hook()
            return original(self, **kwargs)
        monkeypatch.setattr(SandboxSms, "send", send)
    return install


def test_an_accepted_message_marks_its_action_done_and_completes_the_item(api, db, employee, no_callback_failure):
    contact_id, action = _contact_with_action(api, db, employee)
    message = _send(api, employee, contact_id, action["id"])
    stored = _message(db, message["id"])
    assert stored.status == "queued" and stored.provider_message_id.startswith("SM")
    status, completed_at, item = _state(db, action["id"])
    assert (status, completed_at is not None, item) == ("done", True, True)
    listed = api.get(f"{BASE}/contacts/{contact_id}/relationship-actions", as_=employee).json["actions"]
    assert [a["status"] for a in listed] == ["done"]


def test_a_refused_message_leaves_its_action_pending_and_the_item_open(api, db, employee, no_callback_failure):
    contact_id, action = _contact_with_action(api, db, employee, phone=REFUSED)
    message = _send(api, employee, contact_id, action["id"])
    stored = _message(db, message["id"])
    assert stored.status == "failed" and "21211" in stored.error
    assert _state(db, action["id"]) == ("pending", None, False)
    listed = api.get(f"{BASE}/contacts/{contact_id}/relationship-actions", as_=employee).json["actions"]
    assert [a["status"] for a in listed] == ["pending"]


def test_a_refused_auto_action_of_a_life_event_stays_pending(api, db, employee, no_callback_failure):
    """The audit's flow: a birthday's auto-action answered by a message the provider refuses."""
    contact = make_contact(db, phone=REFUSED)
    assert api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=employee, json={"sms_opt_in": True}).status == 200
    event = api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=employee,
                     json={"event_type": "birthday", "title": "Birthday", "event_date": "2099-01-01"})
    assert event.status == 201, event
    [action] = api.get(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee).json["actions"]
    assert action["is_auto"] == 1
    message = _send(api, employee, contact.id, action["id"])
    assert _message(db, message["id"]).status == "failed"
    assert _state(db, action["id"]) == ("pending", None, False)


def test_a_refused_message_then_an_accepted_one_marks_it_done_once(api, db, employee, monkeypatch,
                                                                    no_callback_failure):
    """A retry after a refusal marks the action done; a further message finds it done and changes nothing."""
    from chalicelib.core.errors import BadGateway

    contact_id, action = _contact_with_action(api, db, employee)
    original, refusals = SandboxSms.send, [True]

    def refuse_first(self, **kwargs):
        if refusals:
            refusals.pop()
            raise BadGateway("SMS provider refused the message: 21614 'To' number is not a valid mobile number")
        return original(self, **kwargs)
    monkeypatch.setattr(SandboxSms, "send", refuse_first)
    first = _send(api, employee, contact_id, action["id"])
    assert _message(db, first["id"]).status == "failed"
    assert _state(db, action["id"]) == ("pending", None, False)
    second = _send(api, employee, contact_id, action["id"], body="Happy birthday! (again)")
    assert _message(db, second["id"]).provider_message_id
    status, completed_at, item = _state(db, action["id"])
    assert (status, item) == ("done", True) and completed_at is not None
    third = _send(api, employee, contact_id, action["id"], body="And a third")  # the action is done already
    assert _message(db, third["id"]).provider_message_id
    assert _state(db, action["id"]) == (status, completed_at, True)  # completed_at not moved: nothing doubled


def test_an_action_dismissed_while_the_message_was_sent_stays_dismissed(api, db, employee, during_send,
                                                                        no_callback_failure):
    contact_id, action = _contact_with_action(api, db, employee)
    dismissed = []
    during_send(lambda: dismissed.append(_dismissed(api, employee, action["id"])) or dismissed.append(
        _state(db, action["id"])))
    message = _send(api, employee, contact_id, action["id"])
    assert dismissed and dismissed[0]["status"] == "dismissed"
    assert _message(db, message["id"]).provider_message_id
    assert _state(db, action["id"]) == dismissed[1]  # not turned into done, completed_at kept
    assert dismissed[1][0] == "dismissed" and dismissed[1][2] is True


def _dismissed(api, user, action_id):
    answer = api.patch(f"{BASE}/relationship-actions/{action_id}", as_=user, json={"status": "dismissed"})
    assert answer.status == 200, answer
    return answer.json["action"]


def test_an_item_completed_in_the_action_centre_meanwhile_is_not_completed_twice(api, db, employee, during_send,
                                                                                  no_callback_failure):
    contact_id, action = _contact_with_action(api, db, employee)
    item_id = db.scalar(select(ActionItem.id).where(ActionItem.source_id == action["id"]))
    completed = []

    def complete():
        answer = api.post(f"/api/action-items/{item_id}/complete", as_=employee)
        assert answer.status == 200, answer
        completed.append(_state(db, action["id"]))
    during_send(complete)
    message = _send(api, employee, contact_id, action["id"])
    assert completed and completed[0][0] == "done"  # the action centre marked it done before the provider answered
    assert _message(db, message["id"]).provider_message_id
    assert _state(db, action["id"]) == completed[0]  # the accepted message changed nothing (completed_at kept)


def test_a_contact_deleted_while_its_message_was_sent_is_no_error(api, db, employee, exec_user, during_send,
                                                                   no_callback_failure):
    contact_id, action = _contact_with_action(api, db, employee)
    during_send(lambda: _deleted(api, exec_user, contact_id))
    message = _send(api, employee, contact_id, action["id"])
    assert _message(db, message["id"]) is None  # went with its contact, as its action and the item did
    assert _state(db, action["id"]) == (None, None, None)


def _deleted(api, user, contact_id):
    answer = api.delete(f"/api/deals/contacts/{contact_id}", as_=user)
    assert answer.status == 200, answer


# ---- the live Twilio adapter (responses) ---------------------------------------------------------------------

@pytest.fixture
def live_sms(set_env):
    set_env(SMS_MODE="live", TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="secret-token",
            TWILIO_FROM_NUMBER="+61400000000")


def _twilio_created(status="queued"):
    return {"sid": "SM" + "b" * 32, "status": status, "to": GOOD, "from": "+61400000000", "body": "Hi",
            "error_code": None, "error_message": None, "account_sid": SID}


@responses.activate
def test_live_accepted_message_marks_its_action_done(api, db, employee, live_sms, no_callback_failure):
    responses.post(TWILIO_URL, json=_twilio_created("accepted"), status=201)
    contact_id, action = _contact_with_action(api, db, employee)
    message = _send(api, employee, contact_id, action["id"])
    stored = _message(db, message["id"])
    assert (stored.status, stored.provider_message_id) == ("accepted", "SM" + "b" * 32)
    status, completed_at, item = _state(db, action["id"])
    assert (status, completed_at is not None, item) == ("done", True, True)


@pytest.mark.parametrize("answer", [
    {"status": 400, "json": {"code": 21610, "message": "Attempt to send to unsubscribed recipient", "status": 400}},
    {"status": 429, "json": {"code": 20429, "message": "Too Many Requests", "status": 429},
     "headers": {"Retry-After": "30"}},
    {"status": 500, "json": {"code": 20500, "message": "Internal Server Error", "status": 500}},
    {"body": requests.Timeout("slow")},
    {"body": requests.ConnectionError("down")},
], ids=["refused", "rate-limited", "server-error", "timeout", "unreachable"])
@responses.activate
def test_live_message_not_accepted_leaves_its_action_pending(api, db, employee, live_sms, answer,
                                                             no_callback_failure):
    responses.post(TWILIO_URL, **answer)
    contact_id, action = _contact_with_action(api, db, employee)
    message = _send(api, employee, contact_id, action["id"])
    stored = _message(db, message["id"])
    assert (stored.status, stored.provider_message_id) == ("failed", None) and stored.error
    assert len(responses.calls) == 1
    assert _state(db, action["id"]) == ("pending", None, False)


def test_a_failed_action_write_keeps_the_providers_answer(api, db, employee, monkeypatch):
    """Review of session 24's diff: the provider's sid and status are written in a transaction of their own, before
    the action's; a failure marking the action (a lock, a deadlock) lost them and left the message `queued`."""
    from chalicelib.areas.relationships import service_actions

    def broken(*args, **kwargs):
        raise RuntimeError("deadlock detected")

    monkeypatch.setattr(service_actions, "message_accepted", broken)
    contact_id, action = _contact_with_action(api, db, employee)
    message = _message(db, _send(api, employee, contact_id, action["id"])["id"])
    assert message.provider_message_id and message.error is None, (message.status, message.provider_message_id)
    assert _state(db, action["id"])[0] == "pending"  # the action's write failed: it stays pending
