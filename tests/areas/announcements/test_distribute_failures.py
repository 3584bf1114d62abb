"""Distribution answers each channel's outcome, never a 500 (decisions.md section 4). An announcement's title may
have 500 characters; its e-mail's subject, "Announcement: <title>", overflowed the sandbox outbox's subject column
(the default mode): the flush failed, the session with it, and the whole distribution answered 500 with nothing
recorded (limits audit). The outbox keeps the subject whole now (notifications_0003), and each channel runs in a
savepoint, so a provider's failed write fails that channel only."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.areas.announcements.models import AnnouncementDistribution
from chalicelib.core.notify_outbox import messages
from tests.areas.announcements.factories import make_announcement


def _recorded(db, announcement_id):
    return sorted(db.execute(select(AnnouncementDistribution.channel, AnnouncementDistribution.status)
                             .where(AnnouncementDistribution.announcement_id == announcement_id)).all())


def test_the_e_mail_of_a_500_character_title_is_sent(api, db, exec_user):
    title = "T" * 500
    created = api.post("/api/announcements", as_=exec_user, json={"title": title, "content": "Body", "category": "company"})
    assert created.status == 201, created
    announcement_id = created.json["announcement"]["id"]
    answer = api.post(f"/api/announcements/{announcement_id}/distribute", as_=exec_user,
                      json={"chat": True, "email": True})
    assert answer.status == 200, answer
    assert {name: result["status"] for name, result in answer.json["results"].items()} == {"chat": "sent",
                                                                                            "email": "sent"}
    assert _recorded(db, announcement_id) == [("chat", "sent"), ("email", "sent")]
    assert [m.subject for m in messages(db, provider="mail")][-1] == f"Announcement: {title}"


def test_a_providers_failed_write_fails_its_channel_only(api, db, exec_user, monkeypatch):
    """A sandbox provider whose write fails in the database (here a row its table refuses) is that channel's
    failure: the others are sent and every outcome is recorded."""
    from chalicelib.core import notify_outbox

    real = notify_outbox.record

    def refused(db, **values):
        if values["provider"] == "mail":
            values["target"] = None  # NOT NULL: the flush fails
        return real(db, **values)

    monkeypatch.setattr(notify_outbox, "record", refused)
    monkeypatch.setattr("chalicelib.providers.mail.sandbox.record", refused, raising=False)
    announcement = make_announcement(db, author_id=exec_user.id)
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                      json={"chat": True, "email": True})
    assert answer.status == 200, answer
    assert answer.json["results"]["chat"]["status"] == "sent"
    assert answer.json["results"]["email"]["status"] == "failed"
    assert _recorded(db, announcement.id) == [("chat", "sent"), ("email", "failed")]


def _distribute_text(api, user, *, title, content, **channels):
    created = api.post("/api/announcements", as_=user, json={"title": title, "content": content,
                                                              "category": "company"})
    assert created.status == 201, created
    answer = api.post(f"/api/announcements/{created.json['announcement']['id']}/distribute", as_=user,
                      json=channels)
    assert answer.status == 200, answer
    return answer


def test_announcement_email_subject_carries_no_line_break(api, db, exec_user):
    """A title holding CR/LF (accepted: Title strips only its ends) went whole into the e-mail's Subject, where a header
    reads it as the Subject's end and another header's start (outbound text audit): the mail adapters send one line."""
    _distribute_text(api, exec_user, title="Office closed\r\nBcc: everyone@evil.test", content="Body", email=True)
    subject = messages(db, provider="mail")[-1].subject
    assert "\r" not in subject and "\n" not in subject, repr(subject)


def test_announcement_chat_post_cut_is_marked_and_keeps_whole_entities(api, db, exec_user):
    """The chat post is the escaped text cut at 39,000 characters: no ellipsis, and the cut can split an
    escaped entity ("&amp;" -> "&a"), which Slack then shows as typed."""
    content = "x" * 38994 + "& more text that will be cut"
    _distribute_text(api, exec_user, title="T", content=content, chat=True)
    text = messages(db, provider="chat")[-1].body
    assert len(text) <= 40000
    assert text.endswith("\u2026") and text[:-1].endswith("x"), repr(text[-12:])  # not "&a"
