"""The caller's notifications: list, unread count, read, archive (own data only)."""
import pytest
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import make_user

from .factories import make_notification


@pytest.mark.smoke
def test_list_returns_own_notifications_newest_first_with_actor(api, db):
    user = make_user(db)
    actor = make_user(db, name="Alice Actor", picture="https://img.test/alice.png")
    older = make_notification(db, user, minutes_ago=10, title="older")
    newer = make_notification(db, user, minutes_ago=1, title="newer", actor_id=actor.id)
    make_notification(db, make_user(db), title="someone else's")

    response = api.get("/api/notifications", as_=user)

    assert response.status == 200
    body = response.json
    assert body["total"] == 2 and body["limit"] == 50 and body["offset"] == 0
    assert [n["id"] for n in body["notifications"]] == [newer.id, older.id]
    first = body["notifications"][0]
    assert first["actor_name"] == "Alice Actor"
    assert first["actor_picture"] == "https://img.test/alice.png"
    assert first["is_read"] == 0 and first["archived"] == 0
    assert first["created_at"].endswith("Z")
    assert body["notifications"][1]["actor_name"] is None
    assert set(first) >= {"id", "user_id", "type", "title", "body", "icon", "resource_type", "resource_id",
                          "action_url", "actor_id", "read_at", "archived_at"}


def test_list_filters_unread_and_archived(api, db):
    user = make_user(db)
    unread = make_notification(db, user, minutes_ago=3)
    read = make_notification(db, user, minutes_ago=2, is_read=True)
    archived = make_notification(db, user, minutes_ago=1, archived=True, is_read=True)

    def ids(filter_):
        response = api.get(f"/api/notifications?filter={filter_}", as_=user)
        assert response.status == 200
        return [n["id"] for n in response.json["notifications"]], response.json["total"]

    assert ids("all") == ([read.id, unread.id], 2)
    assert ids("unread") == ([unread.id], 1)
    assert ids("archived") == ([archived.id], 1)


def test_list_pages_with_limit_and_offset(api, db):
    user = make_user(db)
    made = [make_notification(db, user, minutes_ago=index) for index in range(5)]
    response = api.get("/api/notifications?limit=2&offset=2", as_=user)
    assert response.status == 200
    assert response.json["total"] == 5 and response.json["limit"] == 2 and response.json["offset"] == 2
    assert [n["id"] for n in response.json["notifications"]] == [made[2].id, made[3].id]


def test_the_total_the_specification_promises_counts_every_notification(api, db, monkeypatch):
    """Document 3 answers `{ notifications, total, limit, offset }`: the total is counted whole, never stopped at
    core.query.COUNT_LIMIT as the contract's own totals are."""
    from chalicelib.core import query

    monkeypatch.setattr(query, "COUNT_LIMIT", 2)
    user = make_user(db)
    for index in range(5):
        make_notification(db, user, minutes_ago=index)
    body = api.get("/api/notifications?limit=1", as_=user).json
    assert (body["total"], body["total_exact"], len(body["notifications"])) == (5, 1, 1)


@pytest.mark.parametrize("query", ["limit=101", "limit=0", "offset=-1", "filter=starred", "limit=abc"])
def test_list_rejects_bad_query(api, db, query):
    response = api.get(f"/api/notifications?{query}", as_=make_user(db))
    assert response.status == 400
    assert "details" in response.json


def test_list_hides_notifications_stored_with_in_app_off(api, db):
    user = make_user(db)
    make_notification(db, user, in_app=False)
    response = api.get("/api/notifications", as_=user)
    assert response.json["total"] == 0
    assert api.get("/api/notifications/unread-count", as_=user).json == {"unread_count": 0}


def test_requires_authentication(api):
    for path in ("/api/notifications", "/api/notifications/unread-count", "/api/notifications/preferences",
                 "/api/notifications/types", "/api/notifications/push/subscriptions"):
        response = api.get(path)
        assert response.status == 401, path
        assert "error" in response.json


def test_unread_count_counts_unread_non_archived_only(api, db):
    user = make_user(db)
    make_notification(db, user)
    make_notification(db, user)
    make_notification(db, user, is_read=True)
    make_notification(db, user, archived=True)
    make_notification(db, make_user(db))
    response = api.get("/api/notifications/unread-count", as_=user)
    assert response.status == 200
    assert response.json == {"unread_count": 2}


def test_mark_one_read(api, db):
    user = make_user(db)
    notification = make_notification(db, user)
    response = api.post(f"/api/notifications/{notification.id}/read", as_=user)
    assert response.status == 200
    assert response.json == {"success": True}
    db.expire_all()
    stored = db.get(Notification, notification.id)
    assert stored.is_read is True and stored.read_at is not None
    again = api.post(f"/api/notifications/{notification.id}/read", as_=user)
    assert again.status == 200


def test_another_users_notification_is_404(api, db):
    owner, other = make_user(db), make_user(db)
    notification = make_notification(db, owner)
    for action in ("read", "archive"):
        response = api.post(f"/api/notifications/{notification.id}/{action}", as_=other)
        assert response.status == 404
        assert response.json == {"error": "Notification not found"}
    db.expire_all()
    stored = db.get(Notification, notification.id)
    assert stored.is_read is False and stored.archived is False


def test_unknown_notification_is_404(api, db):
    user = make_user(db)
    assert api.post("/api/notifications/00000000-0000-0000-0000-000000000000/read", as_=user).status == 404
    assert api.post("/api/notifications/not-a-uuid/archive", as_=user).status == 404


def test_mark_all_read_touches_only_own(api, db):
    user, other = make_user(db), make_user(db)
    make_notification(db, user)
    make_notification(db, user)
    theirs = make_notification(db, other)
    response = api.post("/api/notifications/read-all", as_=user)
    assert response.status == 200 and response.json == {"success": True}
    assert api.get("/api/notifications/unread-count", as_=user).json == {"unread_count": 0}
    db.expire_all()
    assert db.get(Notification, theirs.id).is_read is False
    rows = db.scalars(select(Notification).where(Notification.user_id == user.id)).all()
    assert all(row.read_at is not None for row in rows)


def test_archive_one_moves_it_to_archived(api, db):
    user = make_user(db)
    notification = make_notification(db, user)
    response = api.post(f"/api/notifications/{notification.id}/archive", as_=user)
    assert response.status == 200 and response.json == {"success": True}
    assert api.get("/api/notifications", as_=user).json["total"] == 0
    archived = api.get("/api/notifications?filter=archived", as_=user).json["notifications"]
    assert [n["id"] for n in archived] == [notification.id]
    assert archived[0]["archived"] == 1 and archived[0]["archived_at"].endswith("Z")


def test_archive_read_archives_read_ones_only(api, db):
    user, other = make_user(db), make_user(db)
    read = make_notification(db, user, is_read=True)
    unread = make_notification(db, user)
    theirs = make_notification(db, other, is_read=True)
    response = api.post("/api/notifications/archive-read", as_=user)
    assert response.status == 200 and response.json == {"success": True}
    db.expire_all()
    assert db.get(Notification, read.id).archived is True
    assert db.get(Notification, unread.id).archived is False
    assert db.get(Notification, theirs.id).archived is False


@pytest.mark.parametrize("path", ["/api/notifications", "/api/notifications?filter=unread",
                                  "/api/notifications/unread-count"])
def test_list_and_count_use_constant_queries(api, db, count_queries, path):
    user = make_user(db)
    actors = [make_user(db) for _ in range(3)]

    def measure(count):
        for index in range(count):
            make_notification(db, user, actor_id=actors[index % 3].id)
        with count_queries() as counter:
            response = api.get(path, as_=user)
        assert response.status == 200
        return counter.count

    few = measure(5)
    many = measure(44)  # 49 in all: still one default page of 50 (a cut page adds the count, tested below)
    assert few == many
    assert api.get("/api/notifications?limit=100", as_=user).json["total"] == 49


def test_a_cut_page_costs_one_count_statement_more(api, db, count_queries):
    user = make_user(db)
    for _ in range(5):
        make_notification(db, user)
    with count_queries() as whole:
        body = api.get("/api/notifications", as_=user).json
    assert (body["total"], body["limit"], body["offset"], len(body["notifications"])) == (5, 50, 0, 5)
    with count_queries() as cut:
        body = api.get("/api/notifications?limit=2&offset=4", as_=user).json
    assert (body["total"], body["limit"], body["offset"], len(body["notifications"])) == (5, 2, 4, 1)
    assert cut.count == whole.count + 1
