"""Session 30, a provider's refusal whose text the database refuses (a NUL, a lone surrogate; an SES ClientError's
message or a push service's body is not read through providers.http.read_json): the outcome's write failed, and the
delivery stayed `sending` until the drain took it over. The error is recorded cleaned (core.serialize.clean_text)."""
import pytest

from chalicelib.core.errors import BadGateway
from chalicelib.providers.mail.sandbox import SandboxMail
from tests.factories import make_user

from .test_providers import _notify_and_deliver, _only


@pytest.mark.parametrize("message, kept", [("Rejected\x00 address", "Rejected address"),
                                           ("Rejected \ud800address", "Rejected \ufffdaddress")])
def test_a_refusal_the_database_refuses_is_recorded_cleaned(db, monkeypatch, message, kept):
    def refuses(self, **kwargs):
        raise BadGateway(f"E-mail provider refused the message: {message}")

    monkeypatch.setattr(SandboxMail, "send", refuses)
    user = make_user(db)
    _only(db, user, "email")
    (row,) = _notify_and_deliver(db, user)
    assert (row.status, row.error) == ("failed", f"E-mail provider refused the message: {kept}")
