"""Session 30, an integration's id that its column cannot keep: a provider answering a booking id or a chat ts that
is no string, or longer than the request's column (`planner_booking_id` 200, `chat_message_ts` 100 characters), made
the whole run's write fail after every integration had run: each outcome was lost (ids, errors), the run's claim
left to go stale, and the next run booked again. Now such an id is that integration's failure (the planner's booking
is then looked for by the reversal, as a lost answer's), and a chat post whose ts cannot be kept is posted with no
ts kept (a chat post is never reversed)."""
from __future__ import annotations

import pytest

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.providers.chat.sandbox import SandboxChat
from chalicelib.providers.planner.sandbox import SandboxPlanner
from tests.areas.leave.factories import mapped_team
from tests.areas.leave.test_integration_timeouts_s27 import _approved


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _row(db, path):
    db.expire_all()
    return db.get(LeaveRequest, path.rsplit("/", 1)[1])


@pytest.mark.parametrize("booking_id", ["b" * 201, 10 ** 201])
def test_a_booking_id_past_its_column_is_the_planner_s_failure_and_the_others_are_kept(api, db, people, monkeypatch,
                                                                                    booking_id):
    real = SandboxPlanner.create_booking

    def answers_a_long_id(self, **kwargs):
        real(self, **kwargs)
        return {"id": booking_id}

    monkeypatch.setattr(SandboxPlanner, "create_booking", answers_a_long_id)
    path = _approved(api, people)
    row = _row(db, path)
    assert row.planner_booking_id is None
    assert "id that cannot be kept" in row.integration_errors["planner"]
    assert row.calendar_event_id and row.chat_message_ts and row.ledger_leave_application_id  # the others kept


def test_a_chat_ts_past_its_column_is_posted_with_no_ts_kept(api, db, people, monkeypatch):
    real = SandboxChat.post_message

    def answers_a_long_ts(self, **kwargs):
        return {**real(self, **kwargs), "ts": "9" * 101}

    monkeypatch.setattr(SandboxChat, "post_message", answers_a_long_ts)
    path = _approved(api, people)
    row = _row(db, path)
    assert row.chat_message_ts is None and "chat" not in (row.integration_errors or {})
    assert row.planner_booking_id and row.calendar_event_id
