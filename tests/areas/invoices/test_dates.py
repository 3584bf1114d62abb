"""Dates of invoices: an invoice may not fall due before it is issued (400; docs/decisions/invoices.md). On
create `issued_date` defaults to today in ORG_TIMEZONE; on update each date left out is the stored one."""
from datetime import date, timedelta

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.timeutil import org_today
from tests.areas.invoices.factories import make_invoice


def _refused(answer, field):
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == [field], answer
    return answer


def test_create_refuses_a_due_date_before_the_issued_date(api, db, exec_user):
    _refused(api.post("/api/invoices", as_=exec_user, json={"issued_date": "2026-05-10", "due_date": "2026-05-09"}),
             "due_date")
    today = org_today()  # the default issued date
    _refused(api.post("/api/invoices", as_=exec_user, json={"due_date": (today - timedelta(days=1)).isoformat()}),
             "due_date")
    assert db.query(Invoice).count() == 0  # nothing made, no number taken
    same_day = api.post("/api/invoices", as_=exec_user, json={"issued_date": "2026-05-10", "due_date": "2026-05-10"})
    assert same_day.status == 201, same_day
    assert (same_day.json["invoice"]["issued_date"], same_day.json["invoice"]["due_date"]) == ("2026-05-10",
                                                                                               "2026-05-10")
    later = api.post("/api/invoices", as_=exec_user, json={"due_date": (today + timedelta(days=30)).isoformat()})
    assert later.status == 201 and later.json["invoice"]["issued_date"] == today.isoformat()
    assert api.post("/api/invoices", as_=exec_user, json={"issued_date": "2026-05-10"}).status == 201  # no due date


def test_update_checks_each_date_against_the_stored_other(api, db, exec_user):
    invoice = make_invoice(db, issued_date=date(2026, 3, 1), due_date=date(2026, 3, 31))
    path = f"/api/invoices/{invoice.id}"
    _refused(api.put(path, as_=exec_user, json={"due_date": "2026-02-28"}), "due_date")
    _refused(api.put(path, as_=exec_user, json={"issued_date": "2026-04-01"}), "issued_date")
    _refused(api.put(path, as_=exec_user, json={"issued_date": "2026-04-01", "due_date": "2026-03-31"}), "due_date")
    db.expire_all()
    stored = db.get(Invoice, invoice.id)
    assert (stored.issued_date, stored.due_date) == (date(2026, 3, 1), date(2026, 3, 31))  # nothing written
    # both moved together, or each within the stored other: accepted
    moved = api.put(path, as_=exec_user, json={"issued_date": "2026-04-01", "due_date": "2026-04-30"})
    assert moved.status == 200, moved
    assert api.put(path, as_=exec_user, json={"due_date": "2026-04-01"}).status == 200
    assert api.put(path, as_=exec_user, json={"due_date": None}).status == 200
    assert api.put(path, as_=exec_user, json={"issued_date": "2026-06-01"}).status == 200  # no due date to pass
    assert api.put(path, as_=exec_user, json={"notes": "n"}).status == 200
