"""Session 30, a request's deadline (docs/decisions/infra.md): a push whose ledger answers a 429 after 19 s, then
hangs on the retry, waited 19 + 5 (Retry-After) + 20 (the retry's timeout) = 44 s, past API Gateway's 29 s: the
client got the gateway's 504 while the function went on. Now the retry gets what is left of the request's 25 s, the
push answers its own 504 at 25 s, and nothing is written: the invoice is as it was and its claim is let go."""
import json

import responses

from chalicelib.areas.invoices.models import Invoice
from chalicelib.providers.ledger.live import ACCOUNTING
from tests.areas.invoices.factories import ready_invoice
from tests.areas.invoices.test_ledger_prepayments import team  # noqa: F401
from tests.core.test_request_deadline_s30 import DEADLINE, answers_after, hung, slow  # noqa: F401


def test_a_push_whose_ledger_is_slow_answers_504_by_the_deadline(api, db, team, slow):  # noqa: F811
    invoice = ready_invoice(db)
    rate_limit = json.dumps({"Title": "Too many requests"})
    with responses.RequestsMock() as mock:
        mock.add_callback(responses.PUT, f"{ACCOUNTING}/Invoices",
                          callback=answers_after(slow, 19, 429, {"Retry-After": "5"}, rate_limit))
        mock.add_callback(responses.PUT, f"{ACCOUNTING}/Invoices", callback=hung(slow))
        started = slow.now
        pushed = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=team.boss)
    assert slow.now - started <= DEADLINE  # 44 s before
    assert pushed.status == 504, pushed.json
    assert pushed.json["error"] == "The accounting ledger did not answer in time"
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    assert (stored.status, stored.ledger_invoice_id, stored.ledger_move_since) == ("draft", None, None)
