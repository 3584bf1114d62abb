"""Session 26 (dead-end states audit): a failed unstar at the source (chat or mail) was never asked again. Completing
the item again asks the actions agent again when the latest unstar outcome is `unstar_failed`; the hourly job
`action-items-unstar-retry` asks again for failures older than an hour, at most UNSTAR_ATTEMPTS per item. Nothing is
asked when nothing failed."""
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.core.history import HistoryEntry
from chalicelib.core.notify_outbox import messages
from tests.areas.action_items.factories import make_action_item

AGENT_MISSING = "reporting"
AGENT_BACK = "actions,reporting"


def _complete(api, item, user):
    answer = api.post(f"/api/action-items/{item.id}/complete", as_=user)
    assert answer.status == 200 and answer.json == {"ok": True}, answer
    return answer


def _asked(db, item):
    return [m.payload["args"] for m in messages(db, provider="business_agent")
            if m.target == "actions" and m.payload["args"]["action_item_id"] == item.id]


def _outcomes(db, item):
    return db.scalars(select(HistoryEntry.action).where(
        HistoryEntry.entity_type == "action_item", HistoryEntry.entity_id == item.id,
        HistoryEntry.action.like("unstar%")).order_by(HistoryEntry.created_at, HistoryEntry.id)).all()


def _age_history(db, item, hours=2):
    """The item's history moved `hours` back; computed here, not in SQL, so that it runs on SQLite too (s27)."""
    db.flush()
    for entry in db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "action_item",
                                                       HistoryEntry.entity_id == item.id)):
        entry.created_at = entry.created_at - timedelta(hours=hours)
    db.flush()


def _failed_item(api, db, user, set_env, **fields):
    set_env(BUSINESS_AGENTS=AGENT_MISSING)
    item = make_action_item(db, assigned_to=user.id, **{"source_module": "mail", "source_id": "msg-1", **fields})
    _complete(api, item, user)
    assert _outcomes(db, item) == ["unstar_failed"] and _asked(db, item) == []
    return item


# ---------------------------------------------------------------- the route

def test_completing_again_asks_again_after_a_failed_unstar(api, db, employee, set_env):
    item = _failed_item(api, db, employee, set_env, source_module="chat", source_type="message", source_id="C1/2")
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    _complete(api, item, employee)
    assert _asked(db, item) == [{"action_item_id": item.id, "source_module": "chat", "source_type": "message",
                                 "source_id": "C1/2", "user_id": employee.id}]
    assert _outcomes(db, item) == ["unstar_failed", "unstar_retried"]  # no failure after the retry: it succeeded
    _complete(api, item, employee)  # the unstar succeeded: nothing more is asked
    assert len(_asked(db, item)) == 1 and _outcomes(db, item) == ["unstar_failed", "unstar_retried"]


def test_a_retry_that_fails_is_recorded_and_can_be_asked_again(api, db, employee, set_env):
    item = _failed_item(api, db, employee, set_env)
    _complete(api, item, employee)  # the agent is still missing
    assert _outcomes(db, item) == ["unstar_failed", "unstar_retried", "unstar_failed"]
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    _complete(api, item, employee)
    assert [args["source_id"] for args in _asked(db, item)] == ["msg-1"]
    assert _outcomes(db, item)[-1] == "unstar_retried"


def test_completing_again_asks_nothing_when_nothing_failed(api, db, employee, set_env):
    mail = make_action_item(db, assigned_to=employee.id, source_module="mail", source_id="msg-7")
    _complete(api, mail, employee)
    _complete(api, mail, employee)
    assert len(_asked(db, mail)) == 1 and _outcomes(db, mail) == []
    # an item not from chat or mail is never asked, whatever its history says
    set_env(BUSINESS_AGENTS=AGENT_MISSING)
    manual = make_action_item(db, assigned_to=employee.id, created_by=employee.id, is_completed=True)
    from chalicelib.core import history

    history.record(db, entity_type="action_item", entity_id=manual.id, action="unstar_failed", actor_id=employee.id)
    db.flush()
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    _complete(api, manual, employee)
    assert _asked(db, manual) == []


# ---------------------------------------------------------------- the hourly job

def test_the_job_retries_failures_older_than_an_hour_once(db, employee, set_env, api):
    from chalicelib.areas.action_items import jobs

    old = _failed_item(api, db, employee, set_env, source_id="msg-old")
    recent = _failed_item(api, db, employee, set_env, source_id="msg-new")
    _age_history(db, old)
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    assert jobs.retry_unstar()["asked"] == 1
    assert [args["source_id"] for args in _asked(db, old)] == ["msg-old"] and _asked(db, recent) == []
    assert args_user(_asked(db, old)) == employee.id  # asked for the person who completed it
    assert _outcomes(db, old) == ["unstar_failed", "unstar_retried"]
    _age_history(db, old)
    assert jobs.retry_unstar()["asked"] == 0  # it succeeded: run again, nothing is asked
    assert len(_asked(db, old)) == 1


def args_user(asked):
    return asked[-1]["user_id"]


def test_the_job_stops_after_its_attempts(db, employee, set_env, api):
    from chalicelib.areas.action_items import jobs

    item = _failed_item(api, db, employee, set_env)
    for attempt in range(2, jobs.UNSTAR_ATTEMPTS + 1):
        _age_history(db, item)
        assert jobs.retry_unstar()["asked"] == 1  # the agent is still missing: a new failure each time
        assert _outcomes(db, item).count("unstar_failed") == attempt
    _age_history(db, item)
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    assert jobs.retry_unstar()["asked"] == 0  # UNSTAR_ATTEMPTS failures: the job gives up on it
    _complete(api, item, employee)  # completing it again still asks
    assert len(_asked(db, item)) == 1


def test_the_job_through_the_cli(db, employee, set_env, api, capsys):
    import json

    from chalicelib import cli

    item = _failed_item(api, db, employee, set_env)
    _age_history(db, item)
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    assert cli.main(["job", "action-items-unstar-retry"]) == 0
    assert json.loads(capsys.readouterr().out)["asked"] == 1
    assert len(_asked(db, item)) == 1


def test_the_job_through_its_scheduled_handler(db, employee, set_env, api, client):
    item = _failed_item(api, db, employee, set_env)
    _age_history(db, item)
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("action_items_unstar_retry", event).payload["asked"] == 1
    assert client.lambda_.invoke("action_items_unstar_retry", event).payload["asked"] == 0  # run twice: one effect
    assert len(_asked(db, item)) == 1


def test_a_spent_budget_leaves_the_rest_for_the_next_run(db, employee, set_env, api):
    from chalicelib.areas.action_items import jobs

    first = _failed_item(api, db, employee, set_env, source_id="msg-a")
    second = _failed_item(api, db, employee, set_env, source_id="msg-b")
    _age_history(db, first)
    _age_history(db, second)
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    assert jobs.retry_unstar(seconds=0) == {"candidates": 2, "asked": 0, "more": True}
    assert jobs.retry_unstar()["asked"] == 2


def test_failures_of_people_who_left_do_not_hold_the_batch(db, employee, set_env, api, monkeypatch):
    """Review of session 26: a failure whose actor left was skipped but stayed a candidate, oldest first, so a batch
    full of them never reached an active user's failure again."""
    from chalicelib.areas.action_items import jobs
    from chalicelib.core.models import User
    from tests.factories import make_user

    leaver = make_user(db, access_level="employee")
    stuck = _failed_item(api, db, leaver, set_env, source_id="msg-leaver")
    _age_history(db, stuck, hours=3)  # the older failure
    db.execute(update(User).where(User.id == leaver.id).values(is_active=False))
    db.flush()
    mine = _failed_item(api, db, employee, set_env, source_id="msg-mine")
    _age_history(db, mine, hours=2)
    set_env(BUSINESS_AGENTS=AGENT_BACK)
    monkeypatch.setattr(jobs, "UNSTAR_BATCH", 1)
    assert jobs.retry_unstar()["asked"] == 1
    assert [args["source_id"] for args in _asked(db, mine)] == ["msg-mine"] and _asked(db, stuck) == []
