"""A life event's type is free text (document 2: "for example `birthday`, `anniversary`"); its auto-action asks for
a card on a birthday, a gift on an anniversary and a card on a work anniversary (docs/decisions/relationships.md).
Session 32 (audit "a value staff type freely"): the type is read as staff mean it, letter case, surrounding spaces
and a space or hyphen for the underscore aside ("Birthday" and "Work anniversary" asked for a call)."""
from datetime import timedelta

import pytest

from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_contact

BASE = "/api/relationships"


@pytest.mark.parametrize("event_type, action_type", [
    ("Birthday", "card"), ("BIRTHDAY", "card"),
    ("Anniversary", "gift"),
    ("Work anniversary", "card"), ("work-anniversary", "card"), ("Work_Anniversary", "card"),
    # guards against reading too much: another type, even one containing a known one, still asks for a call
    ("promotion", "call"), ("Birthday party", "call"),
])
def test_the_auto_action_follows_the_type_as_typed(api, db, employee, event_type, action_type):
    contact = make_contact(db)
    soon = (org_today() + timedelta(days=3)).isoformat()
    made = api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=employee,
                    json={"event_type": event_type, "title": "Occasion", "event_date": soon})
    assert made.status == 201, made
    assert made.json["event"]["event_type"] == event_type.strip()  # kept as typed
    actions = api.get(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee).json["actions"]
    assert [a["action_type"] for a in actions] == [action_type]
