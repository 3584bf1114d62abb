"""Who `announcement_published` reaches (notifications audit): active users but the author who hold
announcements:view as their effective permissions (the access-level matrix as executives edited it, then the
user's own override), never one who cannot open it; in a fixed number of statements whatever the staff count."""
from sqlalchemy import select

from chalicelib.core.models import AccessLevelPermission
from chalicelib.core.notify import Notification
from tests.factories import grant, make_user


def told(db, announcement_id):
    return set(db.scalars(select(Notification.user_id).where(Notification.type == "announcement_published",
                                                             Notification.resource_id == announcement_id)))


def test_only_holders_of_announcements_view_are_told(api, db, exec_user):
    plain = make_user(db)                                    # employee: view by default
    cut_off = make_user(db)                                  # override: none
    grant(db, cut_off, "announcements", "none")
    db.merge(AccessLevelPermission(access_level="lead", tool="announcements", level="none"))
    db.flush()
    lead = make_user(db, access_level="lead")                # the lead row of the matrix: none
    lead_granted = make_user(db, access_level="lead")        # ... but an override gives view back
    grant(db, lead_granted, "announcements", "view")
    manager = make_user(db, access_level="manager")          # update by default
    inactive = make_user(db, is_active=False)
    response = api.post("/api/announcements", as_=exec_user, json={"title": "T", "content": "C", "category": "team"})
    assert response.status == 201, response
    announcement_id = response.json["announcement"]["id"]
    notified = told(db, announcement_id)
    assert {plain.id, lead_granted.id, manager.id} <= notified
    assert not notified & {cut_off.id, lead.id, inactive.id, exec_user.id}
    # the ones left out indeed cannot open it; the others can
    for user in (cut_off, lead):
        assert api.get(f"/api/announcements/{announcement_id}", as_=user).status == 403
    for user in (plain, lead_granted, manager):
        assert api.get(f"/api/announcements/{announcement_id}", as_=user).status == 200


def test_the_audience_costs_the_same_for_few_and_many_users(api, db, exec_user, count_queries, aws):
    counts = []
    for size in (4, 40):
        users = [make_user(db) for _ in range(size)]
        for user in users[::2]:
            grant(db, user, "announcements", "none")
        with count_queries() as counter:
            response = api.post("/api/announcements", as_=exec_user,
                                json={"title": f"News {size}", "content": "C", "category": "team"})
        assert response.status == 201, response
        notified = told(db, response.json["announcement"]["id"])
        assert {u.id for u in users[1::2]} <= notified and not notified & {u.id for u in users[::2]}
        counts.append(counter.count)
    assert counts[0] == counts[1], counts


def test_the_longest_title_is_told_cut_by_core_notify_with_an_ellipsis(api, db, exec_user):
    """"New announcement: " and a 500-character title overflow the notice's title column: core notify cuts it to 500
    characters ending with "…" (the area cut it itself, with no mark, before core notify did)."""
    reader = make_user(db)
    title = "A" * 500
    response = api.post("/api/announcements", as_=exec_user, json={"title": title, "content": "C", "category": "team"})
    assert response.status == 201, response
    db.expire_all()
    notice = db.scalars(select(Notification).where(Notification.user_id == reader.id,
                                                   Notification.type == "announcement_published")).one()
    assert (len(notice.title), notice.title[-1]) == (500, "\u2026")
    assert notice.title.startswith("New announcement: AAA")
