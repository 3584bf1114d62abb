"""A push whose invoice changed while the ledger made it (session 32, audit "a provider sequence that fails halfway";
docs/decisions/invoices.md, "A push's undo the ledger fails"): the push deletes its ledger invoice there and answers
409. When that second ledger call fails (refused, a timeout), the answer was the undo's 502 or 504 ("The accounting
ledger refused the request: ..."), as if the ledger had refused the push: it had made the invoice, nothing was linked
here, and the draft it holds was named nowhere. Now the answer is the 409 of the change, naming the ledger invoice
left there to delete by hand and why its delete failed; nothing is written here, and the claim is let go."""
import pytest
from sqlalchemy import select, update

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.providers.ledger.models import LedgerSandboxInvoice
from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.invoices.factories import ready_invoice


@pytest.mark.parametrize("failure", [BadGateway("The accounting ledger refused the request: Service unavailable"),
                                     GatewayTimeout("The accounting ledger did not answer in time")],
                         ids=["refused", "timeout"])
def test_a_push_whose_undo_fails_answers_the_change_and_names_the_ledger_invoice_left(api, db, exec_user,
                                                                                       monkeypatch, failure):
    invoice = ready_invoice(db)
    create = SandboxLedger.create_invoice
    made = []

    def voided_meanwhile(self, payload, **kwargs):
        answer = create(self, payload, **kwargs)
        made.append(answer["ledger_invoice_id"])
        db.execute(update(Invoice).where(Invoice.id == invoice.id).values(status="voided"))  # an update voided it
        return answer

    def undo_fails(self, ledger_invoice_id, status, **kwargs):
        raise failure

    monkeypatch.setattr(SandboxLedger, "create_invoice", voided_meanwhile)
    monkeypatch.setattr(SandboxLedger, "set_status", undo_fails)
    answer = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user)
    assert answer.status == 409, answer
    assert made[0] in answer.json["error"] and "nothing was linked" in answer.json["error"], answer.json
    assert failure.message in answer.json["error"]
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    assert (stored.status, stored.ledger_invoice_id, stored.ledger_move_since) == ("voided", None, None)
    assert db.scalar(select(LedgerSandboxInvoice.status).where(LedgerSandboxInvoice.id == made[0])) == "DRAFT"
