"""Session 30, a provider's message id outside its documented shape: Slack's chat.postMessage `ts` is a string
(https://docs.slack.dev/reference/methods/chat.postMessage, "ts": "1503435956.000247"). A `ts` that is no string, or
longer than the 200 characters `notification_deliveries.external_id` holds, could not be recorded: the outcome's write
failed after the message was posted, the delivery stayed `sending`, and the drain posted it again once the claim went
stale. The message was posted: the delivery is `sent`, with no external id."""
import pytest

from tests.factories import make_user

from .test_providers import _notify_and_deliver, _only, slack  # noqa: F401 - the live Slack fixture


@pytest.mark.parametrize("ts", [1700000000.0001, ["1.2"], {"ts": "1.2"}, "9" * 201])
def test_a_posted_message_whose_ts_cannot_be_read_is_sent_without_an_id(db, slack, ts):  # noqa: F811
    slack.get("https://slack.com/api/users.lookupByEmail", json={"ok": True, "user": {"id": "U123"}})
    slack.post("https://slack.com/api/chat.postMessage", json={"ok": True, "channel": "D999", "ts": ts})
    user = make_user(db)
    _only(db, user, "chat")
    (row,) = _notify_and_deliver(db, user)
    assert (row.status, row.external_id) == ("sent", None)
