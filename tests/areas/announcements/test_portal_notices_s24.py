"""Session 24: a company announcement's portal notices (`portal_announcement`) are withdrawn when it stops being
one the clients read: deleted, or moved to an internal category. An edit of its title leaves them as they were
sent (a notice is a record of what was said)."""
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture


def _notices(portal, company, user="pu-1"):  # noqa: F811
    answer = portal.get("/notifications", company, user=user)
    assert answer.status == 200, answer
    return [(n["type"], n["title"], n["resource_id"]) for n in answer.json["notifications"]]


def _publish(api, exec_user, title, category="company"):
    made = api.post("/api/announcements", as_=exec_user, json={"title": title, "content": "body",
                                                              "category": category})
    assert made.status == 201, made
    return made.json["announcement"]


def test_a_deleted_company_announcement_leaves_no_notice_in_any_client_portal(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    assert portal.get("/notifications/unread-count", first, user="pu-a").status == 200
    assert portal.get("/notifications/unread-count", second, user="pu-b").status == 200
    kept = _publish(api, exec_user, "Office closed on Friday")
    gone = _publish(api, exec_user, "Restructure: Sydney team let go")
    assert [t for _, t, _ in _notices(portal, first, "pu-a")] == ["Announcement: Restructure: Sydney team let go",
                                                                   "Announcement: Office closed on Friday"]
    assert api.delete(f"/api/announcements/{gone['id']}", as_=exec_user).status == 200
    for company, user in ((first, "pu-a"), (second, "pu-b")):
        assert _notices(portal, company, user) == [("portal_announcement", "Announcement: Office closed on Friday",
                                                    kept["id"])]
        assert portal.get("/notifications/unread-count", company, user=user).json["unread_count"] == 1
    assert [a["id"] for a in portal.get("/announcements", first).json["announcements"]] == [kept["id"]]


def test_a_company_announcement_moved_to_an_internal_category_leaves_no_notice(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    assert portal.get("/notifications/unread-count", mine).status == 200
    for category in ("team", "process"):
        ann = _publish(api, exec_user, f"Pay review ({category})")
        assert len(_notices(portal, mine)) == 1
        moved = api.put(f"/api/announcements/{ann['id']}", as_=exec_user, json={"category": category})
        assert moved.status == 200 and moved.json["announcement"]["category"] == category, moved
        assert portal.get("/announcements", mine).json["announcements"] == []
        assert _notices(portal, mine) == [], category


def test_an_edit_that_keeps_the_category_leaves_the_notices_as_sent(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    assert portal.get("/notifications/unread-count", mine).status == 200
    ann = _publish(api, exec_user, "Holiday hours")
    edited = api.put(f"/api/announcements/{ann['id']}", as_=exec_user,
                     json={"title": "Holiday hours (updated)", "category": "company"})
    assert edited.status == 200, edited
    assert _notices(portal, mine) == [("portal_announcement", "Announcement: Holiday hours", ann["id"])]
    internal = _publish(api, exec_user, "Team lunch", category="team")  # never told to clients: nothing to withdraw
    assert api.delete(f"/api/announcements/{internal['id']}", as_=exec_user).status == 200
    assert len(_notices(portal, mine)) == 1


def test_an_internal_announcement_moved_to_company_tells_the_clients_once(portal, db, api, exec_user):  # noqa: F811
    """Event-paths audit: the portal listed an announcement edited into `company`, and no client was told."""
    mine = make_client(db)
    assert portal.get("/notifications/unread-count", mine).status == 200
    ann = _publish(api, exec_user, "New office", category="team")
    assert _notices(portal, mine) == []
    moved = api.put(f"/api/announcements/{ann['id']}", as_=exec_user, json={"category": "company"})
    assert moved.status == 200, moved
    assert _notices(portal, mine) == [("portal_announcement", "Announcement: New office", ann["id"])]
    again = api.put(f"/api/announcements/{ann['id']}", as_=exec_user, json={"category": "company", "content": "x"})
    assert again.status == 200, again
    assert len(_notices(portal, mine)) == 1  # saved again as a company announcement: nobody told twice
