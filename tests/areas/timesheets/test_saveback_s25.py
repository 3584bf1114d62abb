"""Session 25 (save-back audit): a time entry read and sent back whole. A rejected entry (editable) carries
`status: "rejected"`: a PUT fixing one field and sending that stored status back is not a 400 on `status`, and
the stored status stays; a status changed to anything but draft or submitted is still a 400
(docs/decisions/timesheets.md)."""
import pytest

from tests.areas.timesheets.factories import make_entry
from tests.factories import make_squad, make_user


@pytest.fixture
def team(db):
    manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=manager.id)
    member = make_user(db, squad_id=squad.id)
    return type("Team", (), dict(manager=manager, member=member))


def _rejected(api, db, team) -> dict:
    entry = make_entry(db, team.member, created_by=team.member.id)
    assert api.post(f"/api/time-entries/{entry.id}/submit", as_=team.member).status == 200
    assert api.post(f"/api/time-entries/{entry.id}/reject", as_=team.manager, json={"reason": "desc"}).status == 200
    record = api.get(f"/api/time-entries/{entry.id}", as_=team.member).json["time_entry"]
    assert record["status"] == "rejected"
    return record


def test_rejected_entry_sent_back_with_a_fix_keeps_its_status(api, db, team):
    record = _rejected(api, db, team)
    fixed = api.put(f"/api/time-entries/{record['id']}", as_=team.member, json={**record, "description": "fixed"})
    assert fixed.status == 200, fixed
    assert fixed.json["time_entry"]["description"] == "fixed"
    assert fixed.json["time_entry"]["status"] == "rejected"
    assert fixed.json["time_entry"]["submitted_at"] == record["submitted_at"]


def test_rejected_entry_sent_back_unchanged_changes_nothing(api, db, team):
    record = _rejected(api, db, team)
    same = api.put(f"/api/time-entries/{record['id']}", as_=team.manager, json=record)
    assert same.status == 200, same
    after = api.get(f"/api/time-entries/{record['id']}", as_=team.member).json["time_entry"]
    assert after == record


@pytest.mark.parametrize("status", ["approved", "rejected"])
def test_a_status_changed_to_an_action_status_is_still_400(api, db, team, status):
    entry = make_entry(db, team.member, created_by=team.member.id)  # a draft
    refused = api.put(f"/api/time-entries/{entry.id}", as_=team.member, json={"status": status, "hours": 1})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["status"]
    assert api.get(f"/api/time-entries/{entry.id}", as_=team.member).json["time_entry"]["status"] == "draft"


def test_a_rejected_entry_moved_to_approved_is_still_400(api, db, team):
    record = _rejected(api, db, team)
    refused = api.put(f"/api/time-entries/{record['id']}", as_=team.member, json={**record, "status": "approved"})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["status"]


def test_an_unknown_status_is_still_400(api, db, team):
    entry = make_entry(db, team.member, created_by=team.member.id)
    refused = api.put(f"/api/time-entries/{entry.id}", as_=team.member, json={"status": "done"})
    assert refused.status == 400 and [d["field"] for d in refused.json["details"]] == ["status"]


def test_an_approved_entry_sent_back_is_the_409_of_a_locked_entry(api, db, team):
    entry = make_entry(db, team.member, created_by=team.member.id, status="approved")
    record = api.get(f"/api/time-entries/{entry.id}", as_=team.member).json["time_entry"]
    refused = api.put(f"/api/time-entries/{entry.id}", as_=team.member, json=record)
    assert refused.status == 409 and "approved" in refused.json["error"], refused


def test_a_rejected_entry_saves_back_after_its_day_filled_and_counts_again_when_resubmitted(api, db):
    """Review of session 25: a rejected entry does not count toward its day, so its member may log the day full; the
    entry sent back (unchanged, or with its description fixed) was then refused by the day check of hours it did
    not change. Resubmitted, it counts again and meets the check."""
    from decimal import Decimal

    from tests.areas.timesheets.factories import make_entry
    from tests.factories import make_squad, make_user

    manager = make_user(db, access_level="manager")
    member = make_user(db, squad_id=make_squad(db, manager_id=manager.id).id)
    entry = make_entry(db, member, created_by=member.id, hours=Decimal("8"))
    assert api.post(f"/api/time-entries/{entry.id}/submit", as_=member).status == 200
    assert api.post(f"/api/time-entries/{entry.id}/reject", as_=manager, json={"reason": "x"}).status == 200
    assert api.post("/api/time-entries", as_=member, json={"date": str(entry.date), "hours": 20}).status == 201
    record = api.get(f"/api/time-entries/{entry.id}", as_=member).json["time_entry"]
    assert api.put(f"/api/time-entries/{entry.id}", as_=member, json=record).status == 200
    fixed = api.put(f"/api/time-entries/{entry.id}", as_=member, json={**record, "description": "fixed"})
    assert fixed.status == 200, fixed.json
    again = api.put(f"/api/time-entries/{entry.id}", as_=member, json={**record, "status": "submitted"})
    assert again.status == 400 and again.json["details"][0]["field"] == "hours"
