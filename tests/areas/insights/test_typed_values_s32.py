"""Values staff type freely, counted as they mean them (session 32, audit "code that gives meaning to a value staff
type freely"; docs/decisions/insights.md): a project status of "Completed" is not an active project; a location,
gender or employment basis typed "sydney" or "Sydney " is the same place, group and basis as "Sydney", in the
breakdowns and in the filters alike."""
from datetime import date

from tests.areas.deals.factories import make_company
from tests.factories import config_item

RANGE = "from_date=2025-07-01&to_date=2026-06-30"


def _cells(api, user):
    answer = api.get("/api/insights/capacity-heatmap", as_=user)
    assert answer.status == 200, answer
    return {(c["company_id"], c["project_type_id"]): (c["project_count"], c["active_project_count"])
            for c in answer.json["cells"]}


def test_a_completed_status_typed_in_another_case_is_not_active(api, db, exec_user):
    """A project's status is a free string (docs/decisions/projects.md): "Completed", " cancelled" and "ARCHIVED"
    are the statuses the heatmap leaves out of the active count, whatever their letter case and spaces (they were
    counted as active projects)."""
    acme = make_company(db, name="Acme")
    website = config_item(db, "project_type", "website")
    made = []
    for status in ("Completed", " cancelled", "ARCHIVED", "active"):
        answer = api.post("/api/projects", as_=exec_user,
                          json={"name": f"P {status}", "company_id": acme.id, "type_id": website.id, "status": status})
        assert answer.status == 201, answer
        made.append(answer.json["project"]["id"])
    assert _cells(api, exec_user) == {(acme.id, website.id): (4, 1)}
    # a status changed to one typed that way leaves the active count too
    assert api.put(f"/api/projects/{made[-1]}", as_=exec_user, json={"status": "Completed "}).status == 200
    assert _cells(api, exec_user) == {(acme.id, website.id): (4, 0)}


def _person(api, admin, n, **fields):
    answer = api.post("/api/admin/users", as_=admin,
                      json={"email": f"typed{n}@agency.test", "name": f"Typed {n}", "start_date": "2020-01-01",
                            **fields})
    assert answer.status == 201, answer
    return answer.json["user"]


def _get(api, user, path, query=RANGE):
    answer = api.get(f"/api/insights/{path}?{query}", as_=user)
    assert answer.status == 200, answer
    return answer.json


def test_one_place_group_and_basis_whatever_the_spelling(api, db, exec_user):
    """Four people in Sydney, typed "Sydney" twice, "sydney" and "Sydney " by the admins: one row "Sydney" of 4 in
    the breakdowns (it was three rows), as the location filter counts them (it left out "Sydney ", whose stored
    space it did not trim). Genders and employment bases likewise; a blank one is unspecified."""
    db.get(type(exec_user), exec_user.id).start_date = date(2030, 1, 1)  # the caller is not counted
    db.flush()
    _person(api, exec_user, 1, location="Sydney", gender="female", employment_basis="full_time")
    _person(api, exec_user, 2, location="Sydney", gender="Female", employment_basis="Full_time")
    _person(api, exec_user, 3, location="sydney", gender="female ", employment_basis=" full_time")
    _person(api, exec_user, 4, location="Sydney ", gender="male", employment_basis="part_time")
    _person(api, exec_user, 5, location="Perth", gender=" ", employment_basis="")

    assert _get(api, exec_user, "location") == {
        "breakdown": [{"name": "Sydney", "count": 4, "percentage": 80.0},
                      {"name": "Perth", "count": 1, "percentage": 20.0}], "total": 5}
    overview = _get(api, exec_user, "overview")
    assert overview["location"]["breakdown"] == [{"name": "Sydney", "count": 4}, {"name": "Perth", "count": 1}]
    assert overview["diversity"]["gender"] == {"female": 3, "male": 1, "unspecified": 1}
    assert _get(api, exec_user, "diversity")["gender"] == [
        {"gender": "female", "count": 3}, {"gender": "male", "count": 1}, {"gender": "unspecified", "count": 1}]
    assert _get(api, exec_user, "compensation")["employment_basis"] == [
        {"basis": "full_time", "count": 3}, {"basis": "part_time", "count": 1}, {"basis": "unspecified", "count": 1}]

    # the filters count the same people as the rows they filter on
    assert _get(api, exec_user, "location", f"{RANGE}&location=Sydney")["total"] == 4
    assert _get(api, exec_user, "overview", f"{RANGE}&location=sydney")["headcount"]["total"] == 4
    assert _get(api, exec_user, "overview", f"{RANGE}&gender=FEMALE")["headcount"]["total"] == 3


def test_manager_gender_whatever_the_spelling(api, db, exec_user):
    """The managers' genders are grouped as the people's are."""
    db.get(type(exec_user), exec_user.id).start_date = date(2030, 1, 1)
    db.flush()
    managers = [_person(api, exec_user, n, gender=gender) for n, gender in ((11, "female"), (12, "Female "),
                                                                               (13, "female"))]
    for n, manager in enumerate(managers, start=14):
        _person(api, exec_user, n, manager_id=manager["id"])
    # one row, named by the spelling most of them have (it was two rows, "female" of 2 and "Female " of 1)
    assert _get(api, exec_user, "diversity")["manager_gender"] == [{"gender": "female", "count": 3}]
