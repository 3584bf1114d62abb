"""Session 26 (audit "what a write answers equals the next read"): a push that met the invoice its own retry
linked answered the record before the claim's release was written, so its updated_at was older than the one stored."""
from sqlalchemy import update

from chalicelib.areas.invoices.models import Invoice
from chalicelib.providers.ledger.sandbox import SandboxLedger
from tests.areas.invoices.conftest import ready  # noqa: F401  (fixture)


def test_push_meeting_its_retry_answers_the_stored_record(api, db, exec_user, ready, monkeypatch):  # noqa: F811
    real = SandboxLedger.create_invoice

    def retry_linked_it_meanwhile(self, invoice, **kwargs):
        answer = real(self, invoice, **kwargs)
        db.execute(update(Invoice).where(Invoice.id == ready.id)
                   .values(ledger_invoice_id=answer["ledger_invoice_id"], ledger_status="DRAFT", status="finalised"))
        return answer

    monkeypatch.setattr(SandboxLedger, "create_invoice", retry_linked_it_meanwhile)
    answer = api.post(f"/api/invoices/{ready.id}/push-to-ledger", as_=exec_user)
    assert answer.status == 200, answer
    [listed] = [i for i in api.get("/api/invoices", as_=exec_user).json["invoices"] if i["id"] == ready.id]
    assert answer.json["invoice"] == listed
