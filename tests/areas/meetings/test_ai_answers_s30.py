"""Session 30, AI answers outside the asked shape at the meetings sync (the scheduled job through its Lambda handler),
the AI provider live against `responses` with the OpenAI chat-completions bodies of tests/providers/test_ai_wire.py.
A failed analysis keeps the meeting uncategorised (docs/decisions/meetings.md "Sync"); it must never fail the batch,
which then stored nothing and met the same answer on every later run."""
import json

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.meetings.models import Meeting, MeetingActionItem
from tests.providers.test_ai_wire import URL, completion, live  # noqa: F401 - live: the fixture

def _sync(client):
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    return client.lambda_.invoke("meetings_sync", event).payload


def _stored(db):
    db.expire_all()
    return (db.execute(select(Meeting.id, Meeting.category).order_by(Meeting.id)).all(),
            sorted(db.scalars(select(MeetingActionItem.text))))


@pytest.mark.parametrize("content", [
    json.dumps({"category": "sales", "action_items": 5}),  # TypeError: 'int' object is not iterable
    json.dumps({"category": "sales", "action_items": True}),
    json.dumps({"category": "sales", "action_items": 2.5}),
    "[" * 5000 + "]" * 5000,  # RecursionError in json.loads
])
def test_an_answer_that_cannot_be_read_is_a_failed_analysis_not_a_failed_sync(db, client, live, content):
    live.add(responses.POST, URL, json=completion(content))
    answer = _sync(client)
    assert (answer["created"], answer["action_items"]) == (5, 0)
    meetings, items = _stored(db)
    assert len(meetings) == 5 and all(category is None for _, category in meetings) and items == []


@pytest.mark.parametrize("text, kept", [
    ("Send\u0000 the quote", "Send the quote"),  # Postgres text refuses NUL: the batch's insert failed
    ("Send the quote \ud800", "Send the quote \ufffd"),  # a lone surrogate: the insert's UTF-8 encoding failed
])
def test_an_action_item_text_with_nul_or_a_lone_surrogate_is_kept_cleaned(db, client, live, text, kept):
    live.add(responses.POST, URL, json=completion(json.dumps(
        {"category": "sales", "action_items": [{"text": text, "assignee_email": None}]})))
    answer = _sync(client)
    assert (answer["created"], answer["action_items"]) == (5, 5)
    meetings, items = _stored(db)
    assert [category for _, category in meetings] == ["sales"] * 5 and items == [kept] * 5
