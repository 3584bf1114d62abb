"""The actions agent (issue 13 item 6): completing an action item from chat or mail asks the business agent
`actions` to unstar it at its source, after commit; a failure is recorded on the item's history, not raised."""
import json

import responses
from sqlalchemy import select

from chalicelib.core.history import HistoryEntry
from chalicelib.core.notify_outbox import messages
from tests.areas.action_items.factories import make_action_item


def _complete(api, item, user):
    answer = api.post(f"/api/action-items/{item.id}/complete", as_=user)
    assert answer.status == 200 and answer.json == {"ok": True}, answer
    return answer


def _asked(db):
    return [m.payload for m in messages(db, provider="business_agent") if m.target == "actions"]


def _failures(db, item):
    return db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "action_item",
                                                 HistoryEntry.entity_id == item.id,
                                                 HistoryEntry.action == "unstar_failed")).all()


def test_completing_a_chat_or_mail_item_asks_the_actions_agent_once(api, db, employee):
    chat = make_action_item(db, assigned_to=employee.id, source_module="chat", source_type="message",
                            source_id="C123/1700000000.000100")
    mail = make_action_item(db, assigned_to=employee.id, source_module="mail", source_id="msg-42")
    manual = make_action_item(db, assigned_to=employee.id, created_by=employee.id)
    _complete(api, chat, employee)
    [asked] = _asked(db)
    assert asked["command"] == "unstar" and asked["requested_by"] == employee.id
    assert asked["args"] == {"action_item_id": chat.id, "source_module": "chat", "source_type": "message",
                             "source_id": "C123/1700000000.000100", "user_id": employee.id}
    _complete(api, chat, employee)  # already completed: nothing more
    _complete(api, manual, employee)  # not from chat or mail
    assert len(_asked(db)) == 1
    _complete(api, mail, employee)
    assert [a["args"]["source_id"] for a in _asked(db)] == ["C123/1700000000.000100", "msg-42"]
    assert _failures(db, chat) == [] and _failures(db, mail) == []
    # the agent's execution history shows it
    logs = api.get("/api/business-agents/actions/logs", as_=employee).json["logs"]
    assert [entry["args"]["source_id"] for entry in logs] == ["msg-42", "C123/1700000000.000100"]


def test_a_missing_actions_agent_is_recorded_not_raised(api, db, employee, set_env):
    set_env(BUSINESS_AGENTS="reporting")
    item = make_action_item(db, assigned_to=employee.id, source_module="mail", source_id="msg-1")
    _complete(api, item, employee)
    [failure] = _failures(db, item)
    assert failure.changes["error"] == "Business agent not found" and failure.changes["source_id"] == "msg-1"
    from chalicelib.areas.action_items.models import ActionItem

    db.expire_all()
    assert db.get(ActionItem, item.id).is_completed is True  # completed whatever the agent said


@responses.activate
def test_a_failing_live_actions_agent_is_recorded(api, db, employee, set_env):
    set_env(ORCHESTRATOR_MODE="live", BUSINESS_AGENTS="actions=https://actions-agent.agency.test")
    responses.add(responses.POST, "https://actions-agent.agency.test/command", json={"error": "boom"}, status=500)
    item = make_action_item(db, assigned_to=employee.id, source_module="chat", source_id="C1/2")
    _complete(api, item, employee)
    sent = responses.calls[0].request
    assert json.loads(sent.body)["args"]["source_id"] == "C1/2" and sent.headers["X-WMS-User-Id"] == employee.id
    [failure] = _failures(db, item)
    assert "answered HTTP 500" in failure.changes["error"]


@responses.activate
def test_a_live_actions_agent_that_accepts(api, db, employee, set_env):
    set_env(ORCHESTRATOR_MODE="live", BUSINESS_AGENTS="actions=https://actions-agent.agency.test")
    responses.add(responses.POST, "https://actions-agent.agency.test/command", json={"ok": True}, status=202)
    item = make_action_item(db, assigned_to=employee.id, source_module="mail", source_id="m-9")
    _complete(api, item, employee)
    assert len(responses.calls) == 1 and _failures(db, item) == []
