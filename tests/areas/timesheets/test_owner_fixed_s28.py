"""A time entry's owner is fixed at creation (session 28's ignored-input audit): a PUT naming another user_id was
answered 200 with the owner unchanged, so a manager moving an entry to someone else was told it had moved. It is a
400 naming user_id now; the owner sent back as stored (a client saving the whole entry it read) is no change."""
from tests.areas.timesheets.factories import make_entry
from tests.factories import make_squad, make_user


def test_a_put_naming_another_owner_is_refused_and_the_stored_one_taken(api, db):
    manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=manager.id)
    member, other = make_user(db, squad_id=squad.id), make_user(db, squad_id=squad.id)
    entry = make_entry(db, member)
    path = f"/api/time-entries/{entry.id}"
    moved = api.put(path, as_=manager, json={"user_id": other.id, "hours": 3})
    assert moved.status == 400, moved
    assert moved.json["details"][0]["field"] == "user_id"
    assert api.get(path, as_=manager).json["time_entry"]["user_id"] == member.id
    saved = api.put(path, as_=member, json={"user_id": member.id, "hours": 3})
    assert saved.status == 200, saved
    assert (saved.json["time_entry"]["user_id"], saved.json["time_entry"]["hours"]) == (member.id, 3)
