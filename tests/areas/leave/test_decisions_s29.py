"""Session 29's audit of docs/decisions/leave.md against the code: "`total_hours` is optional, a positive number of at
most 10000 with two decimals". The leave request took `total_hours` through core `Money` alone, which reads a numeric
string too, so `"total_hours": "7.5"` was stored and answered 201, where every other number of a request is a JSON
number and a string is a wrong type (decisions.md section 4: 400), as the tasks area's estimate_total_cost refuses it."""
import pytest

from tests.factories import make_user

BODY = {"leave_type_id": "annual", "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
        "end_date": "2026-12-03"}


@pytest.mark.parametrize("hours", ["7.5", "8", True])
def test_total_hours_is_a_json_number(api, db, hours):
    employee = make_user(db)
    answer = api.post("/api/leave/requests", as_=employee, json={**BODY, "total_hours": hours})
    assert answer.status == 400, answer
    assert [detail["field"] for detail in answer.json["details"]] == ["total_hours"]
    assert api.get("/api/leave/requests", as_=employee).json["requests"] == []  # nothing stored


@pytest.mark.parametrize("hours, status", [(7.5, 201), (22.8, 201), (10000, 201), (0, 400), (10000.01, 400),
                                           (1.234, 400), (None, 201)])
def test_total_hours_bounds_stay(api, db, hours, status):
    """The rest of the claim, unchanged: positive, at most 10000, two decimals; optional."""
    answer = api.post("/api/leave/requests", as_=make_user(db), json={**BODY, "total_hours": hours})
    assert answer.status == status, (hours, answer)
    if status == 201:
        assert answer.json["request"]["total_hours"] == hours
