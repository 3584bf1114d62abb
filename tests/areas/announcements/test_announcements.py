"""Announcements at /api/announcements (document 3): list, unread count, detail with receipts, create with
staff notification, edit, delete, idempotent read, distributions and distribute."""
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select

from chalicelib.areas.announcements.models import AnnouncementDistribution, AnnouncementReceipt
from chalicelib.core.notify import Notification
from chalicelib.core.notify_outbox import messages
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.announcements.factories import make_announcement
from tests.factories import make_user


@pytest.fixture
def head(db):
    return make_user(db, access_level="head", name="Hana Head")


@pytest.mark.smoke
def test_create_edit_read_delete(api, db, exec_user, head, employee):
    created = api.post("/api/announcements", as_=head, json={
        "title": " Office move ", "content": "We move on Monday.", "category": "company",
        "attachment_url": "https://files.example.com/plan.pdf", "attachment_name": "plan.pdf", "author_id": "x"})
    assert created.status == 201, created
    record = created.json["announcement"]
    assert record["title"] == "Office move" and record["author_id"] == head.id
    assert (record["author_name"], record["is_read"], record["category"]) == ("Hana Head", 0, "company")
    path = f"/api/announcements/{record['id']}"

    assert api.get("/api/announcements/unread-count", as_=employee).json == {"unread_count": 1}
    assert api.post(f"{path}/read", as_=employee).json == {"ok": True}
    assert api.post(f"{path}/read", as_=employee).json == {"ok": True}  # idempotent
    assert db.scalar(select(func.count()).select_from(AnnouncementReceipt)) == 1
    assert api.get("/api/announcements/unread-count", as_=employee).json == {"unread_count": 0}
    assert api.get(path, as_=employee).json["announcement"]["is_read"] == 1

    edited = api.put(path, as_=head, json={"content": "We move on Tuesday.", "category": "process"})
    assert edited.status == 200 and edited.json["announcement"]["content"] == "We move on Tuesday."
    assert edited.json["announcement"]["title"] == "Office move" and edited.json["announcement"]["category"] == "process"
    other_head = make_user(db, access_level="head")
    assert api.put(path, as_=other_head, json={"title": "x"}).status == 403  # not the author
    assert api.put(path, as_=exec_user, json={"title": "By exec"}).json["announcement"]["title"] == "By exec"
    assert api.put(path, as_=employee, json={"title": "x"}).status == 403  # view only
    assert api.put(path, as_=head, json={"title": None}).status == 400

    assert api.delete(path, as_=head).status == 403  # executive only
    assert api.delete(path, as_=exec_user).json == {"ok": True}
    assert db.scalar(select(func.count()).select_from(AnnouncementReceipt)) == 0
    assert api.get(path, as_=exec_user).status == 404
    assert api.post(f"{path}/read", as_=employee).status == 404
    assert api.delete(path, as_=exec_user).status == 404


def test_create_rules(api, db, exec_user, employee):
    manager = make_user(db, access_level="manager")
    body = {"title": "T", "content": "C", "category": "team"}
    assert api.post("/api/announcements", as_=manager, json=body).status == 403
    assert api.post("/api/announcements", as_=employee, json=body).status == 403
    for bad in ({"content": "C", "category": "team"}, {"title": "T", "category": "team"},
                {"title": "T", "content": "C"}, {**body, "category": "news"}, {**body, "title": "  "},
                {**body, "content": "   "}, {**body, "attachment_url": "javascript:alert(1)"},
                {**body, "title": 5}):
        refused = api.post("/api/announcements", as_=exec_user, json=bad)
        assert refused.status == 400 and refused.json["error"], (bad, refused)


def test_new_announcement_notifies_staff_in_fixed_statements(api, db, exec_user, count_queries, aws):
    """With the notifications queue configured (as deployed): delivery happens in the queue worker."""
    def publish(staff: int):
        users = [make_user(db) for _ in range(staff)]
        inactive = make_user(db, is_active=False)
        with count_queries() as counter:
            answer = api.post("/api/announcements", as_=exec_user,
                              json={"title": f"News for {staff}", "content": "C", "category": "company"})
        assert answer.status == 201
        ids = set(db.scalars(select(Notification.user_id).where(
            Notification.type == "announcement_published",
            Notification.resource_id == answer.json["announcement"]["id"])))
        assert {u.id for u in users} <= ids and exec_user.id not in ids and inactive.id not in ids
        return counter.count

    assert publish(5) == publish(60)


def test_list_order_category_and_is_read(api, db, employee):
    author = make_user(db, access_level="head", name="Ann Author", picture="https://p.example.com/a.png")
    now = datetime.now(timezone.utc)
    old = make_announcement(db, category="team", author_id=author.id, created_at=now - timedelta(days=2))
    new = make_announcement(db, category="client", author_id=author.id, created_at=now - timedelta(days=1))
    db.add(AnnouncementReceipt(announcement_id=old.id, user_id=employee.id))
    db.flush()
    listed = api.get("/api/announcements", as_=employee).json["announcements"]
    assert [(a["id"], a["is_read"]) for a in listed] == [(new.id, 0), (old.id, 1)]
    assert (listed[0]["author_name"], listed[0]["author_picture"]) == ("Ann Author", "https://p.example.com/a.png")
    only = api.get("/api/announcements?category=team", as_=employee).json["announcements"]
    assert [a["id"] for a in only] == [old.id]
    assert api.get("/api/announcements?category=news", as_=employee).status == 400
    assert api.get("/api/announcements/unread-count", as_=employee).json == {"unread_count": 1}


def test_receipts_only_for_head_and_executive(api, db, exec_user, employee):
    head = make_user(db, access_level="head")
    manager = make_user(db, access_level="manager")
    announcement = make_announcement(db)
    api.post(f"/api/announcements/{announcement.id}/read", as_=employee)
    for user in (head, exec_user):
        body = api.get(f"/api/announcements/{announcement.id}", as_=user).json
        assert [(r["user_id"], r["user_name"]) for r in body["read_receipts"]] == [(employee.id, employee.name)]
    for user in (employee, manager):
        body = api.get(f"/api/announcements/{announcement.id}", as_=user).json
        assert "read_receipts" not in body and body["announcement"]["id"] == announcement.id


def test_list_costs_constant_statements(api, db, employee, count_queries):
    def cost(n):
        author = make_user(db, access_level="head")
        for _ in range(n):
            made = make_announcement(db, author_id=author.id)
            db.add(AnnouncementReceipt(announcement_id=made.id, user_id=employee.id))
        db.flush()
        with count_queries() as counter:
            answer = api.get("/api/announcements", as_=employee)
        assert answer.status == 200
        return counter.count

    assert cost(5) == cost(100)


# ---------------------------------------------------------------- distribution

def test_distribute_to_every_channel(api, db, head):
    announcement = make_announcement(db, author_id=head.id, title="Town hall", content="Friday at 4")
    path = f"/api/announcements/{announcement.id}"
    answer = api.post(f"{path}/distribute", as_=head, json={"chat": True, "email": True,
                                                            "calendar": {"date": "2026-12-04"}})
    assert answer.status == 200, answer
    results = answer.json["results"]
    assert {channel: result["status"] for channel, result in results.items()} == {
        "chat": "sent", "calendar": "sent", "email": "sent"}
    chat = messages(db, provider="chat")
    assert [(m.target, m.external_id) for m in chat] == [("C_ANNOUNCEMENTS", results["chat"]["external_id"])]
    assert "Town hall" in chat[0].body and "Friday at 4" in chat[0].body
    mail = messages(db, provider="mail")
    assert [(m.target, m.external_id) for m in mail] == [("all-staff@example.com", results["email"]["external_id"])]
    event = db.get(SandboxCalendarEvent, results["calendar"]["external_id"])
    assert event.calendar_id == "team" and event.event["summary"] == "Town hall"
    assert event.event["start"] == {"date": "2026-12-04"} and event.event["end"] == {"date": "2026-12-05"}

    listed = api.get(f"{path}/distributions", as_=head).json["distributions"]
    assert sorted((d["channel"], d["status"], d["sent_by"], d["sent_by_name"]) for d in listed) == [
        ("calendar", "sent", head.id, head.name), ("chat", "sent", head.id, head.name),
        ("email", "sent", head.id, head.name)]
    assert all(d["external_id"] and d["error"] is None for d in listed)


def test_distribute_timed_event_and_one_failure_does_not_stop_others(api, db, exec_user, set_env):
    set_env(ANNOUNCEMENTS_CHAT_CHANNEL="C_INVALID_CHANNEL", ANNOUNCEMENTS_EMAIL_TO="staff@bounce.test")
    announcement = make_announcement(db)
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user, json={
        "chat": True, "email": True, "calendar": {"date": "2026-12-04", "start_time": "09:30", "end_time": "10:00"}})
    assert answer.status == 200, answer
    results = answer.json["results"]
    assert results["chat"]["status"] == "failed" and "channel_not_found" in results["chat"]["error"]
    assert results["email"]["status"] == "failed" and "bounce.test" in results["email"]["error"]
    assert results["calendar"]["status"] == "sent"
    event = db.get(SandboxCalendarEvent, results["calendar"]["external_id"]).event
    assert event["start"] == {"dateTime": "2026-12-04T09:30:00", "timeZone": "Australia/Sydney"}
    rows = db.execute(select(AnnouncementDistribution.channel, AnnouncementDistribution.status,
                             AnnouncementDistribution.error)).all()
    assert sorted((c, s, e is not None) for c, s, e in rows) == [
        ("calendar", "sent", False), ("chat", "failed", True), ("email", "failed", True)]

    set_env(CALENDAR_MODE="off")
    off = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                   json={"calendar": {"date": "2026-12-04"}}).json["results"]
    assert off == {"calendar": {"status": "failed", "error": "The calendar is not configured"}}


def test_distribute_rules(api, db, exec_user):
    author = make_user(db, access_level="head")
    other = make_user(db, access_level="head")
    announcement = make_announcement(db, author_id=author.id)
    path = f"/api/announcements/{announcement.id}/distribute"
    assert api.post(path, as_=other, json={"chat": True}).status == 403
    for bad in ({}, {"chat": False}, {"calendar": {}}, {"calendar": {"date": "2026-13-01"}},
                {"calendar": {"date": "2026-12-01", "start_time": "09:00"}},
                {"calendar": {"date": "2026-12-01", "start_time": "10:00", "end_time": "09:00"}},
                {"calendar": {"date": "2026-12-01", "start_time": "9am", "end_time": "10am"}},
                {"chat": "yes"}):
        refused = api.post(path, as_=author, json=bad)
        assert refused.status == 400, (bad, refused)
    assert api.post("/api/announcements/nope/distribute", as_=exec_user, json={"chat": True}).status == 404
    assert db.scalar(select(func.count()).select_from(AnnouncementDistribution)) == 0


def test_distribute_all_day_event_on_the_last_representable_day_is_a_400(api, db, exec_user):
    """An all-day event ends (exclusively) the next day, which 9999-12-31 has not: a 400 naming the date, not a
    calendar channel that failed on an OverflowError (a traceback in the logs)."""
    announcement = make_announcement(db)
    path = f"/api/announcements/{announcement.id}/distribute"
    refused = api.post(path, as_=exec_user, json={"calendar": {"date": "9999-12-31"}})
    assert refused.status == 400, refused
    assert refused.json["details"][0]["field"] == "calendar"
    assert db.scalar(select(func.count()).select_from(AnnouncementDistribution)) == 0
    timed = api.post(path, as_=exec_user, json={"calendar": {"date": "9999-12-31", "start_time": "09:00",
                                                             "end_time": "10:00"}})
    assert timed.status == 200 and timed.json["results"]["calendar"]["status"] == "sent", timed
    first = api.post(path, as_=exec_user, json={"calendar": {"date": "0001-01-01"}})
    assert first.status == 200 and first.json["results"]["calendar"]["status"] == "sent", first


def test_distribute_chat_posts_to_the_channel_of_the_chat_connection(api, db, exec_user, set_env):
    """Document 3: `chat` posts to the configured team chat channel, the channel an executive saves with the chat
    connection (`PUT /api/admin/connections/chat`), unless ANNOUNCEMENTS_CHAT_CHANNEL names the announcements'
    own channel."""
    saved = api.put("/api/admin/connections/chat", as_=exec_user, json={"bot_token": "xoxb-1", "channel_id": "C_TEAM"})
    assert saved.status == 200, saved
    announcement = make_announcement(db, author_id=exec_user.id)
    path = f"/api/announcements/{announcement.id}/distribute"
    answer = api.post(path, as_=exec_user, json={"chat": True})
    assert answer.json["results"]["chat"]["status"] == "sent", answer
    assert [m.target for m in messages(db, provider="chat")] == ["C_TEAM"]

    set_env(ANNOUNCEMENTS_CHAT_CHANNEL="C_NEWS")
    assert api.post(path, as_=exec_user, json={"chat": True}).json["results"]["chat"]["status"] == "sent"
    assert sorted(m.target for m in messages(db, provider="chat")) == ["C_NEWS", "C_TEAM"]


def test_an_announcement_deleted_while_its_channels_answer_still_answers_what_was_sent(api, db, exec_user,
                                                                                       monkeypatch):
    """The providers answer with no transaction open, so the announcement may be deleted meanwhile: the answer is
    what was sent (the messages are out), and there is nothing left to record the distribution on. It was a 400
    ("announcement_id does not match a record") from the distribution rows' foreign key."""
    from sqlalchemy import delete

    from chalicelib.areas.announcements.models import Announcement
    from chalicelib.providers.chat.sandbox import SandboxChat

    announcement = make_announcement(db)
    post_message = SandboxChat.post_message

    def deleted_meanwhile(self, **kwargs):
        answer = post_message(self, **kwargs)
        db.execute(delete(Announcement).where(Announcement.id == announcement.id))
        return answer

    monkeypatch.setattr(SandboxChat, "post_message", deleted_meanwhile)
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                      json={"chat": True, "email": True})
    assert answer.status == 200, answer
    assert {channel: result["status"] for channel, result in answer.json["results"].items()} == {
        "chat": "sent", "email": "sent"}
    assert db.scalar(select(func.count()).select_from(AnnouncementDistribution).where(
        AnnouncementDistribution.announcement_id == announcement.id)) == 0


def test_distribute_chat_escapes_the_announcement_so_it_pings_nobody(api, db, head):
    """Slack reads `<!channel>` as a channel ping and `<url|label>` as a link: the title and content are sent
    escaped (`&`, `<`, `>`), shown as written."""
    announcement = make_announcement(db, author_id=head.id, title="Q&A <!channel>",
                                     content="Slides: <https://evil.example|deck> & notes")
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=head, json={"chat": True})
    assert answer.json["results"]["chat"]["status"] == "sent", answer
    (post,) = messages(db, provider="chat")
    assert post.body == "*Q&amp;A &lt;!channel&gt;*\nSlides: &lt;https://evil.example|deck&gt; &amp; notes"
