"""Session 30, Twilio's refusal in words carrying a NUL or a lone surrogate (its JSON error `message`): the failure
is recorded on the message (service_messages: "A failure is recorded on the message, never raised"), whose write
failed on them, leaving the message `queued` for good. Cleaned where the answer is read (providers.http.read_json),
as tests/providers/test_nul_texts_s30.py shows for the other providers. The live adapter against `responses`."""
import pytest
import responses

from tests.areas.relationships.test_message_auto_action_s24 import (  # noqa: F401 - fixtures
    TWILIO_URL,
    _contact_with_action,
    _message,
    _send,
    live_sms,
    no_callback_failure,
)
from tests.providers.test_nul_texts_s30 import LONE, NUL


@pytest.mark.parametrize("bad, kept", [(NUL, ""), (LONE, "\ufffd")])
@responses.activate
def test_a_refusal_in_words_the_database_refuses_is_recorded_cleaned(api, db, employee, live_sms, bad, kept):  # noqa: F811
    responses.post(TWILIO_URL, status=400, json={"code": 21999, "message": f"Refused{bad} here", "status": 400})
    contact_id, action = _contact_with_action(api, db, employee)
    message = _send(api, employee, contact_id, action["id"])
    stored = _message(db, message["id"])
    assert (stored.status, stored.error) == ("failed", f"SMS provider refused the message: 21999 Refused{kept} here")
