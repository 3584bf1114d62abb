"""A ledger move (approve, send, void, delete in the ledger) carries an Idempotency-Key stable across the user's
retries of it (docs/decisions/invoices.md, "Idempotency-Key of the moves"): a send retried after the ledger e-mailed
the client but its answer was lost (504, nothing written here) sends the same key, so the ledger answers the first
answer and does not e-mail the client again. A new intent is a new key: a second send after the first was written
(a resend), or another move. Through HTTP, against the sandbox ledger, recording the keys it is given."""
import pytest

from chalicelib.core.errors import GatewayTimeout
from chalicelib.providers.ledger.sandbox import SandboxLedger


def post(api, user, invoice, step):
    return api.post(f"/api/invoices/{invoice.id}/{step}", as_=user)


@pytest.fixture
def keys(monkeypatch):
    """The keys the ledger's moves are given, by move; `keys.lose_next` makes the next move's answer lost (504) after
    the ledger did it."""
    seen = {"status": [], "email": []}
    lose = []
    real_status, real_email = SandboxLedger.set_status, SandboxLedger.email_invoice

    def set_status(self, ledger_invoice_id, status, *, idempotency_key=None):
        seen["status"].append((status, idempotency_key))
        answer = real_status(self, ledger_invoice_id, status, idempotency_key=idempotency_key)
        if lose:
            lose.pop()
            raise GatewayTimeout("The accounting ledger did not answer in time")
        return answer

    def email_invoice(self, ledger_invoice_id, *, idempotency_key=None):
        seen["email"].append(idempotency_key)
        real_email(self, ledger_invoice_id, idempotency_key=idempotency_key)
        if lose:
            lose.pop()
            raise GatewayTimeout("The accounting ledger did not answer in time")

    monkeypatch.setattr(SandboxLedger, "set_status", set_status)
    monkeypatch.setattr(SandboxLedger, "email_invoice", email_invoice)
    seen["lose_next"] = lambda: lose.append(True)
    return seen


def test_a_send_retried_after_a_lost_answer_sends_the_same_key(api, db, exec_user, ready, keys):
    assert post(api, exec_user, ready, "push-to-ledger").status == 200
    assert post(api, exec_user, ready, "ledger-approve").status == 200
    keys["lose_next"]()
    assert post(api, exec_user, ready, "ledger-send").status == 504  # e-mailed, the answer lost: nothing written
    retried = post(api, exec_user, ready, "ledger-send")
    assert retried.status == 200, retried
    first, again = keys["email"]
    assert first is not None and first == again  # the ledger answers the first answer: one e-mail to the client


def test_a_resend_and_other_moves_have_keys_of_their_own(api, db, exec_user, ready, keys):
    assert post(api, exec_user, ready, "push-to-ledger").status == 200
    assert post(api, exec_user, ready, "ledger-approve").status == 200
    assert post(api, exec_user, ready, "ledger-send").status == 200
    assert post(api, exec_user, ready, "ledger-send").status == 200  # sent again on purpose: e-mailed again
    assert post(api, exec_user, ready, "ledger-void").status == 200
    [first, second] = keys["email"]
    [(approved, approve_key), (voided, void_key)] = keys["status"]
    assert (approved, voided) == ("AUTHORISED", "VOIDED")
    assert None not in (first, second, approve_key, void_key)
    assert len({first, second, approve_key, void_key}) == 4


def test_an_approve_retried_after_a_lost_answer_sends_the_same_key(api, db, exec_user, ready, keys, monkeypatch):
    assert post(api, exec_user, ready, "push-to-ledger").status == 200
    keys["lose_next"]()
    assert post(api, exec_user, ready, "ledger-approve").status == 504
    # Xero (and the sandbox since session 32) kept the approval, and answers the retry under the same key with the
    # first answer
    assert post(api, exec_user, ready, "ledger-approve").status == 200
    [(_, first), (_, again)] = keys["status"]
    assert first is not None and first == again


def test_a_send_retried_after_viewing_the_invoice_sends_the_same_key(api, db, exec_user, ready, keys):
    """The invoice's detail reads the ledger live and writes what it answered: an answer that changes nothing no
    longer moves `updated_at`, which the key is made of (session 23 review: the user who looked whether the invoice
    was sent, then sent it again, had the client e-mailed twice)."""
    assert post(api, exec_user, ready, "push-to-ledger").status == 200
    assert post(api, exec_user, ready, "ledger-approve").status == 200
    keys["lose_next"]()
    assert post(api, exec_user, ready, "ledger-send").status == 504  # e-mailed, the answer lost: nothing written
    viewed = api.get(f"/api/invoices/{ready.id}", as_=exec_user)  # was it sent? the user looks
    assert viewed.status == 200, viewed
    assert post(api, exec_user, ready, "ledger-send").status == 200
    first, again = keys["email"]
    assert first is not None and first == again
