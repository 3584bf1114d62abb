"""Session 30, the writes after a side effect: a distribution records each channel's outcome with the provider's id
of what it sent (`announcement_distributions.external_id`, 500 characters). An id that column cannot keep (Slack's
chat.postMessage `ts` is a string of no stated length, https://docs.slack.dev/reference/methods/chat.postMessage; an
e-mail provider's message id that is no string, or holds a NUL, which Postgres refuses in any text) failed the distribution rows' insert after every channel had gone out: the
request answered 500 with nothing recorded, and the user's retry posted and e-mailed the announcement again. The
message went: the channel is `sent`, with no external id, and every channel's outcome is recorded."""
import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.announcements.models import AnnouncementDistribution
from tests.areas.announcements.factories import make_announcement


def _recorded(db, announcement_id):
    return sorted(db.execute(select(AnnouncementDistribution.channel, AnnouncementDistribution.status,
                                    AnnouncementDistribution.external_id)
                             .where(AnnouncementDistribution.announcement_id == announcement_id)).all())


def test_a_slack_ts_past_the_column_is_sent_without_an_id(api, db, exec_user, set_env):
    set_env(CHAT_MODE="live", CHAT_BOT_TOKEN="xoxb-test-token", ANNOUNCEMENTS_CHAT_CHANNEL="C_NEWS")
    announcement = make_announcement(db, author_id=exec_user.id)
    with responses.RequestsMock() as slack:
        slack.post("https://slack.com/api/chat.postMessage", json={"ok": True, "channel": "C_NEWS", "ts": "9" * 501})
        answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                          json={"chat": True, "email": True})
    assert answer.status == 200, answer
    assert answer.json["results"]["chat"] == {"status": "sent", "external_id": None}
    assert answer.json["results"]["email"]["status"] == "sent"
    recorded = _recorded(db, announcement.id)
    assert [(channel, status) for channel, status, _ in recorded] == [("chat", "sent"), ("email", "sent")]
    assert recorded[0][2] is None and recorded[1][2]


@pytest.mark.parametrize("message_id", [12345, ["m-1"], "m" * 501, "m-\x00-1"])
def test_an_e_mail_id_that_cannot_be_kept_is_sent_without_an_id(api, db, exec_user, monkeypatch, message_id):
    from chalicelib.providers.mail.sandbox import SandboxMail

    send = SandboxMail.send

    def odd_id(self, **kwargs):
        send(self, **kwargs)
        return message_id

    monkeypatch.setattr(SandboxMail, "send", odd_id)
    announcement = make_announcement(db, author_id=exec_user.id)
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                      json={"chat": True, "email": True})
    assert answer.status == 200, answer
    assert answer.json["results"]["email"] == {"status": "sent", "external_id": None}
    recorded = _recorded(db, announcement.id)
    assert [(channel, status) for channel, status, _ in recorded] == [("chat", "sent"), ("email", "sent")]
    assert recorded[0][2] and recorded[1][2] is None
