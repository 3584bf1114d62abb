"""A config item's value is unique within its list ignoring case (session 32, 2026-11-29; "labels" audit): `urgent`
and `Urgent` could both be items of one list, two items staff read as one value, while other areas find an item by
its value (the portal's request priority, a project status naming a `project_status` item ignoring case) and the
filters compare values. docs/decisions/config_lists.md, Validation."""
import pytest

from tests.factories import make_user


@pytest.fixture
def admin(db):
    return make_user(db, access_level="executive")


@pytest.mark.parametrize("value", ["Urgent", "URGENT"])
def test_a_value_in_another_case_is_taken(api, db, admin, value):
    refused = api.post("/api/config-lists/task_priority/items", as_=admin, json={"label": "Very urgent", "value": value})
    assert refused.status == 409, refused.json
    assert "urgent" in refused.json["error"]
    items = api.get("/api/config-lists/task_priority/items", as_=admin).json["items"]
    assert [i["value"] for i in items if i["value"].lower() == "urgent"] == ["urgent"]


def test_an_update_to_another_items_value_in_another_case_is_taken(api, db, admin):
    made = api.post("/api/config-lists/task_priority/items", as_=admin, json={"label": "Later", "value": "later"})
    assert made.status == 201, made.json
    url = f"/api/config-lists/task_priority/items/{made.json['item']['id']}"
    assert api.put(url, as_=admin, json={"value": "High"}).status == 409
    # its own value in another case is no clash
    renamed = api.put(url, as_=admin, json={"value": "Later"})
    assert renamed.status == 200 and renamed.json["item"]["value"] == "Later"
