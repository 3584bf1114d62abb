"""A project status written as staff read it (session 32, 2026-11-29; "labels" audit): the `project_status` list's
items are what the status means (value `completed`, label "Completed"), and the completion side effects, the
`status` filter, the portal's active projects and the capacity heatmap compare the stored status with those
values. A status naming an item of the list by its value or its label, ignoring case, is stored as the item's
value; any other status is kept as typed (a free string). docs/decisions/projects.md, Validation."""
import pytest

from tests.factories import make_user

from .test_completed_company_later_s24 import _put, _told, _wins


@pytest.fixture
def boss(db):
    return make_user(db, access_level="executive", name="Boss")


def _project(api, boss, **extra):
    answer = api.post("/api/projects", json={"name": "Spelling", **extra}, as_=boss)
    assert answer.status == 201, answer
    return answer.json["project"]


@pytest.mark.parametrize("typed", ["Completed", "COMPLETED", " completed "])
def test_a_status_completed_in_another_case_completes_the_project(api, db, boss, typed):
    delivery = make_user(db, name="Delivery")
    company = api.post("/api/deals/companies", json={"name": "Client Co"}, as_=boss).json["company"]
    project = _project(api, boss, company_id=company["id"], delivery_manager_id=delivery.id)
    saved = _put(api, boss, project, status=typed)
    assert len(_wins(db, project)) == 1  # the draft client win and the delivery manager's notice
    assert len(_told(db, delivery, "project_completed")) == 1
    assert saved["status"] == "completed"
    # sent again as first typed: the same status, nothing repeated
    assert _put(api, boss, project, status=typed.lower())["status"] == "completed"
    assert len(_told(db, delivery, "project_completed")) == 1


def test_a_status_given_as_the_lists_label_is_stored_as_its_value(api, db, boss):
    project = _project(api, boss, status="On hold")
    assert project["status"] == "on_hold"
    assert _put(api, boss, project, status="active")["status"] == "active"
    listed = api.get("/api/projects?status=on_hold,active", as_=boss).json["projects"]
    assert [p["id"] for p in listed] == [project["id"]]


def test_a_status_the_list_does_not_name_is_kept_as_typed(api, db, boss):
    project = _project(api, boss, status="Waiting on Client")
    assert project["status"] == "Waiting on Client"
    assert _put(api, boss, project, status="Paused")["status"] == "Paused"


def test_a_relabelled_item_names_its_value(api, db, boss):
    """The list defines the meaning: an administrator's label for `completed` ("Delivered") completes."""
    items = api.get("/api/config-lists/project_status/items", as_=boss).json["items"]
    [done] = [item for item in items if item["value"] == "completed"]
    assert api.put(f"/api/config-lists/project_status/items/{done['id']}", json={"label": "Delivered"},
                   as_=boss).status == 200
    delivery = make_user(db, name="Delivery")
    company = api.post("/api/deals/companies", json={"name": "Client Co"}, as_=boss).json["company"]
    project = _project(api, boss, company_id=company["id"], delivery_manager_id=delivery.id)
    assert _put(api, boss, project, status="delivered")["status"] == "completed"
    assert len(_wins(db, project)) == 1


def test_the_status_filter_takes_the_lists_label_or_another_case(api, db, boss):
    """`?status=Completed` (the label staff read) listed none of the completed projects."""
    done = _project(api, boss, status="completed")
    held = _project(api, boss, status="on_hold")
    other = _project(api, boss, status="Waiting on Client")
    _project(api, boss)  # active
    for query, wanted in (("Completed", [done]), ("On%20hold,COMPLETED", [held, done]), ("completed", [done]),
                          ("Waiting%20on%20Client", [other])):
        listed = api.get(f"/api/projects?status={query}", as_=boss).json["projects"]
        assert {p["id"] for p in listed} == {p["id"] for p in wanted}, query


def test_an_item_whose_value_cannot_be_a_status_is_not_named(api, db, boss):
    """A `project_status` item's value may run to 200 characters, a status to 50: its label names no status (the
    status is kept as typed) rather than failing the write."""
    long_value = "x" * 60
    made = api.post("/api/config-lists/project_status/items", as_=boss, json={"label": "Archived", "value": long_value})
    assert made.status == 201, made.json
    assert _project(api, boss, status="Archived")["status"] == "Archived"
