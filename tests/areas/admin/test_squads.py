"""Squads: list with manager and member count, create, update, delete."""
import pytest
from sqlalchemy import func, select

from chalicelib.core.models import HistoryEntry, Squad, User
from tests.factories import make_squad, make_user


@pytest.fixture
def executive(db):
    return make_user(db, access_level="executive", name="Eve")


def test_list_squads(api, db, executive, count_queries):
    boss = make_user(db, name="Boss")
    blue = make_squad(db, name="blue", manager_id=boss.id, chat_channel_id="C1")
    make_squad(db, name="Alpha")
    make_user(db, squad_id=blue.id)
    make_user(db, squad_id=blue.id)
    make_user(db, squad_id=blue.id, is_active=False)
    head = make_user(db, access_level="head")
    with count_queries() as counter:
        response = api.get("/api/admin/squads", as_=head)
    assert response.status == 200
    squads = response.json["squads"]
    names = [s["name"] for s in squads]
    assert names.index("Alpha") < names.index("blue")
    row = next(s for s in squads if s["id"] == blue.id)
    assert row == {"id": blue.id, "name": "blue", "manager_id": boss.id, "manager_name": "Boss",
                   "chat_channel_id": "C1", "member_count": 2, "created_at": row["created_at"]}
    for _ in range(10):
        make_user(db, squad_id=make_squad(db).id)
    with count_queries() as more:
        api.get("/api/admin/squads", as_=head)
    assert more.count == counter.count
    assert api.get("/api/admin/squads", as_=make_user(db, access_level="manager")).status == 403


def test_create_squad(api, db, executive):
    response = api.post("/api/admin/squads", as_=executive,
                        json={"name": " Growth ", "manager_id": executive.id, "chat_channel_id": "C42"})
    assert response.status == 201
    squad = response.json["squad"]
    assert squad["name"] == "Growth" and squad["manager_name"] == "Eve" and squad["member_count"] == 0
    assert db.get(Squad, squad["id"]).chat_channel_id == "C42"
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == squad["id"]))
    assert entry.entity_type == "squad" and entry.action == "created"


def test_create_squad_errors(api, db, executive):
    assert api.post("/api/admin/squads", as_=executive, json={}).status == 400
    assert api.post("/api/admin/squads", as_=executive, json={"name": ""}).status == 400
    response = api.post("/api/admin/squads", as_=executive, json={"name": "X", "manager_id": "missing"})
    assert response.status == 400
    head = make_user(db, access_level="head")
    assert api.post("/api/admin/squads", as_=head, json={"name": "X"}).status == 403


def test_update_squad(api, db, executive):
    squad = make_squad(db, name="Old", chat_channel_id="C1")
    response = api.put(f"/api/admin/squads/{squad.id}", as_=executive,
                       json={"name": "New", "manager_id": executive.id, "chat_channel_id": None})
    assert response.status == 200
    assert response.json["squad"]["name"] == "New"
    assert response.json["squad"]["manager_id"] == executive.id
    assert response.json["squad"]["chat_channel_id"] is None
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == squad.id, HistoryEntry.action == "updated"))
    assert entry.changes["name"] == {"from": "Old", "to": "New"}


def test_update_squad_errors(api, db, executive):
    squad = make_squad(db)
    missing = "00000000-0000-0000-0000-000000000000"
    assert api.put(f"/api/admin/squads/{missing}", as_=executive, json={"name": "X"}).status == 404
    assert api.put(f"/api/admin/squads/{squad.id}", as_=executive, json={"name": None}).status == 400
    assert api.put(f"/api/admin/squads/{squad.id}", as_=executive, json={"manager_id": "nobody"}).status == 400
    head = make_user(db, access_level="head")
    assert api.put(f"/api/admin/squads/{squad.id}", as_=head, json={"name": "X"}).status == 403


def test_delete_squad_keeps_members(api, db, executive):
    squad_id = make_squad(db).id
    member_id = make_user(db, squad_id=squad_id).id
    head = make_user(db, access_level="head")
    assert api.delete(f"/api/admin/squads/{squad_id}", as_=head).status == 403
    response = api.delete(f"/api/admin/squads/{squad_id}", as_=executive)
    assert response.status == 200 and response.json == {"ok": True}
    db.expire_all()
    assert db.get(Squad, squad_id) is None
    assert db.get(User, member_id).squad_id is None
    assert db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == squad_id,
                                                HistoryEntry.action == "deleted")) is not None
    assert api.delete(f"/api/admin/squads/{squad_id}", as_=executive).status == 404


def test_at_most_500_squads(api, db, executive):
    existing = db.scalar(select(func.count(Squad.id)))
    db.add_all([Squad(name=f"squad {n}") for n in range(500 - existing)])
    db.flush()
    response = api.post("/api/admin/squads", as_=executive, json={"name": "one too many"})
    assert response.status == 409 and "500" in response.json["error"]
    assert len(api.get("/api/admin/squads", as_=executive).json["squads"]) == 500
