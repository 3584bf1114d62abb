"""Session 31, what a meeting analysis keeps: a category written as a near miss ("Sales", "One-on-one") is read as
the category it names, an action item repeated in one answer is kept once, and items after the 50 kept are not read
(one bad item there failed the whole analysis and lost the 50). Bodies as tests/providers/test_ai_wire.py."""
import json

import pytest
from sqlalchemy import func, select

from chalicelib.core.errors import BadGateway
from chalicelib.providers.ai.live import LiveAI
from tests.providers.test_ai_wire import completion, live  # noqa: F401 - the fixture

URL = "https://ai.provider.test/v1/chat/completions"
ATTENDEES = [{"email": "pat@agency.test", "name": "Pat"}, {"email": "sam@agency.test", "name": "Sam"}]


def analyse(mock, answer: dict) -> dict:
    mock.post(URL, json=completion(json.dumps(answer)))
    return LiveAI(base_url="https://ai.provider.test/v1", api_key="sk-test", model="gpt-4o-mini", timeout=10
                  ).analyse_meeting(title="Weekly", summary="", action_items="", attendees=ATTENDEES)


@pytest.mark.parametrize("written, category", [
    ("Sales", "sales"), (" CLIENT ", "client"), ("One-on-one", "one_on_one"), ("one on one", "one_on_one"),
    ("Stand-up", "standup"), ("stand_up", "standup"), ("one_on_one", "one_on_one"),
])
def test_a_category_written_as_a_near_miss_is_the_category_it_names(live, written, category):
    assert analyse(live, {"category": written, "action_items": []})["category"] == category


@pytest.mark.parametrize("written", ["party", "sales call", "", None, 5])
def test_any_other_category_is_still_a_failed_analysis(live, written):
    with pytest.raises(BadGateway, match="category must be one of"):
        analyse(live, {"category": written, "action_items": []})


def test_an_item_repeated_in_one_answer_is_kept_once_per_assignee(live):
    answer = analyse(live, {"category": "internal", "action_items": [
        {"text": "Send the quote", "assignee_email": "pat@agency.test"},
        {"text": "  send   the QUOTE ", "assignee_email": "PAT@agency.test"},
        {"text": "Send the quote", "assignee_email": "sam@agency.test"},
        {"text": "Send the quote", "assignee_email": None},
        {"text": "Send the quote", "assignee_email": "stranger@else.test"},  # no attendee: the unassigned one again
    ]})
    assert answer["action_items"] == [{"text": "Send the quote", "assignee_email": "pat@agency.test"},
                                      {"text": "Send the quote", "assignee_email": "sam@agency.test"},
                                      {"text": "Send the quote", "assignee_email": None}]


def test_items_after_the_fifty_kept_are_not_read(live):
    items = [{"text": f"Item {n}", "assignee_email": None} for n in range(50)]
    items += [{"text": "Item 0", "assignee_email": None}]  # a repeat does not count towards the 50
    answer = analyse(live, {"category": "internal", "action_items": items + [{"text": "   "}, 7, {"text": "Late"}]})
    assert [item["text"] for item in answer["action_items"]] == [f"Item {n}" for n in range(50)]


def test_a_bad_item_among_the_fifty_still_fails_the_analysis(live):
    items = [{"text": f"Item {n}", "assignee_email": None} for n in range(10)] + [{"text": "   "}]
    with pytest.raises(BadGateway, match="needs a text"):
        analyse(live, {"category": "internal", "action_items": items})


def test_the_sync_stores_a_repeated_item_once(db, live):
    """Through the meetings sync job: each of the sandbox's five notes is analysed with an answer naming one item
    twice; each meeting keeps it once, categorised as the near miss names."""
    from chalicelib.areas.meetings.models import Meeting, MeetingActionItem
    from chalicelib.areas.meetings.service_sync import run_sync

    live.post(URL, json=completion(json.dumps({"category": "Sales", "action_items": [
        {"text": "Send the quote", "assignee_email": None}, {"text": "Send the Quote", "assignee_email": None}]})))
    assert run_sync(force=True)["created"] == 5
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Meeting).where(Meeting.category == "sales")) == 5
    per_meeting = db.execute(select(MeetingActionItem.meeting_id, func.count()).group_by(MeetingActionItem.meeting_id))
    assert sorted(count for _, count in per_meeting) == [1] * 5
