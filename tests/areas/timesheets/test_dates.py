"""Dates and times of time entries: one person's day holds at most 24 hours, over all their entries."""
from datetime import date
from decimal import Decimal

from tests.areas.timesheets.factories import make_entry
from tests.factories import make_squad, make_user


def test_a_day_holds_at_most_24_hours_over_all_entries(api, db):
    member = make_user(db)
    make_entry(db, member, date=date(2026, 3, 1), hours=Decimal("20"), status="approved")  # a Sunday
    over = api.post("/api/time-entries", as_=member, json={"date": "2026-03-01", "hours": 4.5})
    assert over.status == 400, over
    assert over.json["details"][0]["field"] == "hours"
    assert "24" in over.json["details"][0]["message"]
    assert api.post("/api/time-entries", as_=member, json={"date": "2026-03-01", "hours": 4}).status == 201
    # the next day (the Monday of another week) is a day of its own
    assert api.post("/api/time-entries", as_=member, json={"date": "2026-03-02", "hours": 24}).status == 201


def test_rejected_entries_and_other_people_do_not_count(api, db):
    member, other = make_user(db), make_user(db)
    make_entry(db, member, date=date(2026, 3, 3), hours=Decimal("20"), status="rejected")
    make_entry(db, other, date=date(2026, 3, 3), hours=Decimal("20"))
    assert api.post("/api/time-entries", as_=member, json={"date": "2026-03-03", "hours": 10}).status == 201


def test_an_update_moving_hours_onto_a_full_day(api, db):
    member = make_user(db)
    make_entry(db, member, date=date(2026, 12, 31), hours=Decimal("16"))
    entry = make_entry(db, member, date=date(2027, 1, 1), hours=Decimal("9"))
    moved = api.put(f"/api/time-entries/{entry.id}", as_=member, json={"date": "2026-12-31"})
    assert moved.status == 400, moved
    assert moved.json["details"][0]["field"] == "hours"
    # its own hours are not counted twice: growing an entry alone on its day up to 24 is fine
    assert api.put(f"/api/time-entries/{entry.id}", as_=member, json={"hours": 24}).status == 200
    assert api.put(f"/api/time-entries/{entry.id}", as_=member, json={"date": "2026-12-31", "hours": 8}).status == 200


def test_a_manager_logging_for_the_team_meets_the_same_limit(api, db):
    manager = make_user(db, access_level="manager")
    member = make_user(db, squad_id=make_squad(db, manager_id=manager.id).id)
    make_entry(db, member, date=date(2026, 3, 4), hours=Decimal("23"))
    over = api.post("/api/time-entries", as_=manager, json={"user_id": member.id, "date": "2026-03-04", "hours": 2})
    assert over.status == 400, over


def test_a_rejected_entry_brought_back_meets_the_same_limit(api, db):
    """A rejected entry is left out of its day; a PUT of `status` or the submit action that makes it count again is
    checked as a create is (400 naming hours), so the day cannot be filled past 24 behind the rejection."""
    member = make_user(db)
    day = date(2026, 3, 5)
    rejected = make_entry(db, member, date=day, hours=Decimal("20"), status="rejected")
    logged = api.post("/api/time-entries", as_=member, json={"date": day.isoformat(), "hours": 20})
    assert logged.status == 201, logged  # the rejected entry does not count
    for status in ("draft", "submitted"):
        back = api.put(f"/api/time-entries/{rejected.id}", as_=member, json={"status": status})
        assert back.status == 400, back
        assert back.json["details"][0]["field"] == "hours"
    submitted = api.post(f"/api/time-entries/{rejected.id}/submit", as_=member)
    assert submitted.status == 400, submitted
    assert submitted.json["details"][0]["field"] == "hours"
    assert api.get(f"/api/time-entries/{rejected.id}", as_=member).json["time_entry"]["status"] == "rejected"
    # lowered to fit (20 + 4), it comes back and is submitted
    assert api.put(f"/api/time-entries/{rejected.id}", as_=member, json={"hours": 4, "status": "draft"}).status == 200
    assert api.post(f"/api/time-entries/{rejected.id}/submit", as_=member).status == 200
