"""Session 32, audit "error bodies that name the wrong field": a project whose end would fall before its start is a
400 whose detail names the date the request sent: `end_date` when it gives one, `start_date` when an update moves
only the start past the stored end (it named `end_date`, a field the request did not send; tasks and invoices name
the sent date since session 28)."""
from tests.factories import make_user


def _fields(answer):
    return [(d["field"], d["message"]) for d in answer.json["details"]]


def test_a_backwards_range_names_the_date_sent(api, db):
    worker = make_user(db, access_level="employee")
    backwards = api.post("/api/projects", json={"name": "x", "start_date": "2026-02-01", "end_date": "2026-01-01"},
                         as_=worker)
    assert backwards.status == 400 and _fields(backwards) == [("end_date", "before start_date")]
    project = api.post("/api/projects", json={"name": "V", "start_date": "2026-01-01", "end_date": "2026-01-10"},
                       as_=worker).json["project"]
    path = f"/api/projects/{project['id']}"
    late = api.put(path, json={"start_date": "2026-02-01"}, as_=worker)
    assert late.status == 400 and _fields(late) == [("start_date", "after end_date")], late.json
    early = api.put(path, json={"end_date": "2025-12-31"}, as_=worker)
    assert early.status == 400 and _fields(early) == [("end_date", "before start_date")], early.json
    both = api.put(path, json={"start_date": "2026-03-02", "end_date": "2026-03-01"}, as_=worker)
    assert both.status == 400 and _fields(both) == [("end_date", "before start_date")], both.json
