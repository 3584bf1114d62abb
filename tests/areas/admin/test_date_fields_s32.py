"""Session 32, audit "error bodies that name the wrong field": a user whose end date would fall before their start
date is a 400 naming the date the request sent: `end_date` when it gives one, `start_date` when an update moves only
the start past the stored end (it named `end_date`, a field the request did not send). Deactivating oneself names
`is_active` (it answered no details)."""


def test_an_update_names_the_date_it_sent(api, exec_user):
    made = api.post("/api/admin/users", as_=exec_user, json={
        "email": "dates@b.test", "name": "X", "start_date": "2024-01-01", "end_date": "2024-06-30"})
    assert made.status == 201, made.json
    path = f"/api/admin/users/{made.json['user']['id']}"
    late = api.put(path, as_=exec_user, json={"start_date": "2024-07-01"})
    assert late.status == 400 and late.json["details"] == [
        {"field": "start_date", "message": "after end_date"}], late.json
    early = api.put(path, as_=exec_user, json={"end_date": "2023-12-31"})
    assert early.status == 400 and early.json["details"] == [
        {"field": "end_date", "message": "before start_date"}], early.json
    backwards = api.post("/api/admin/users", as_=exec_user, json={
        "email": "a@b.test", "name": "X", "start_date": "2024-05-01", "end_date": "2024-04-01"})
    assert backwards.status == 400 and [d["field"] for d in backwards.json["details"]] == ["end_date"]


def test_deactivating_yourself_names_is_active(api, exec_user):
    """The one 400 of a user update about a single field that answered no details (decisions.md section 4: a
    validation error adds them): `is_active` false on one's own record."""
    answer = api.put(f"/api/admin/users/{exec_user.id}", as_=exec_user, json={"is_active": False})
    assert answer.status == 400 and answer.json.get("details") == [
        {"field": "is_active", "message": "cannot be false on your own record"}], answer.json
