"""Session 26 (audit "what a write answers equals the next read"): a push that met the invoice its own retry
linked answered the record before the claim's release was written, so its updated_at was older than the one stored."""
from tests.areas.invoices.conftest import ready  # noqa: F401  (fixture)
from tests.areas.invoices.factories import retry_links_meanwhile


def test_push_meeting_its_retry_answers_the_stored_record(api, db, exec_user, ready, monkeypatch):  # noqa: F811
    retry_links_meanwhile(db, monkeypatch, ready)
    answer = api.post(f"/api/invoices/{ready.id}/push-to-ledger", as_=exec_user)
    assert answer.status == 200, answer
    [listed] = [i for i in api.get("/api/invoices", as_=exec_user).json["invoices"] if i["id"] == ready.id]
    assert answer.json["invoice"] == listed
