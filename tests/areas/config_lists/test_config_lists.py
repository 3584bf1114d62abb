"""Config lists (tool config-lists): reads, seeded system lists, item create/update/reorder/delete."""
import pytest
from sqlalchemy import select

from chalicelib.core.models import ConfigListItem, HistoryEntry
from tests.factories import config_item, grant, make_user

from .factories import make_item, make_list

MISSING = "00000000-0000-0000-0000-000000000000"
SYSTEM_KEYS = {"task_status", "task_priority", "task_type", "task_phase", "deal_stage", "project_type",
               "project_status", "service_type"}


@pytest.fixture
def viewer(db):
    return make_user(db, access_level="employee")  # config-lists:view by default


@pytest.fixture
def admin(db):
    return make_user(db, access_level="executive")  # config-lists:manage


@pytest.fixture
def custom(db):
    config_list = make_list(db, key="lead_source", name="Lead source")
    items = {
        "b": make_item(db, config_list, label="Beta", value="beta", position=1),
        "a": make_item(db, config_list, label="Alpha", value="alpha", position=1),
        "z": make_item(db, config_list, label="Zero", value="zero", position=0, is_default=True),
    }
    return config_list, items


# --- reads ---------------------------------------------------------------------------------------

@pytest.mark.smoke
def test_seeded_system_lists(api, viewer):
    response = api.get("/api/config-lists", as_=viewer)
    assert response.status == 200
    lists = {entry["key"]: entry for entry in response.json["lists"]}
    assert SYSTEM_KEYS <= set(lists)
    for key in SYSTEM_KEYS:
        assert lists[key]["is_system"] == 1
        assert lists[key]["items"], key
        assert all(item["is_system"] == 1 for item in lists[key]["items"])
    statuses = lists["task_status"]["items"]
    assert [item["is_default"] for item in statuses].count(1) == 1
    assert {"todo", "done"} <= {item["value"] for item in statuses}
    assert "agent_task" in {item["value"] for item in lists["task_type"]["items"]}
    stages = {item["value"]: item for item in lists["deal_stage"]["items"]}
    assert stages["won"]["probability"] == 100 and stages["won"]["stage_type"] == "done"
    assert stages["lead"]["probability"] == 10 and stages["lead"]["stage_type"] == "not_started"
    assert all(isinstance(item["probability"], (int, float)) for item in stages.values())


def test_list_record_shape_and_flags(api, viewer, custom):
    config_list, items = custom
    response = api.get("/api/config-lists?key=lead_source", as_=viewer)
    assert response.status == 200
    [entry] = response.json["lists"]
    assert entry["id"] == config_list.id and entry["name"] == "Lead source" and entry["is_system"] == 0
    item = entry["items"][0]
    assert set(item) == {"id", "list_id", "label", "value", "color", "icon", "is_default", "is_system", "position",
                         "stage_type", "probability", "email_template_id", "email_trigger_active", "created_at"}
    assert item["is_default"] == 1 and item["email_trigger_active"] == 0 and item["list_id"] == config_list.id


def test_items_ordered_by_position_then_label(api, viewer, custom):
    _, items = custom
    response = api.get("/api/config-lists?key=lead_source", as_=viewer)
    assert [i["label"] for i in response.json["lists"][0]["items"]] == ["Zero", "Alpha", "Beta"]
    response = api.get("/api/config-lists/lead_source/items", as_=viewer)
    assert response.status == 200
    assert [i["id"] for i in response.json["items"]] == [items["z"].id, items["a"].id, items["b"].id]


def test_key_filter(api, viewer):
    response = api.get("/api/config-lists?key=task_type", as_=viewer)
    assert [entry["key"] for entry in response.json["lists"]] == ["task_type"]
    assert api.get("/api/config-lists?key=nothing_here", as_=viewer).json == {"lists": []}


def test_items_of_unknown_list_is_404(api, viewer):
    response = api.get("/api/config-lists/nothing_here/items", as_=viewer)
    assert response.status == 404 and "error" in response.json


def test_reads_need_config_lists_view(api, db):
    user = make_user(db)
    grant(db, user, "config-lists", "none")
    assert api.get("/api/config-lists", as_=user).status == 403
    assert api.get("/api/config-lists/task_status/items", as_=user).status == 403
    assert api.get("/api/config-lists").status == 401


def test_list_read_costs_constant_queries(api, db, viewer, count_queries):
    with count_queries() as before:
        api.get("/api/config-lists", as_=viewer)
    for n in range(5):
        config_list = make_list(db)
        for _ in range(4):
            make_item(db, config_list)
    with count_queries() as after:
        response = api.get("/api/config-lists", as_=viewer)
    assert len(response.json["lists"]) >= 14
    assert after.count == before.count
    # the caller, then the lists and their items in one statement (one a set on SQLite)
    assert after.count == (2 if db.get_bind().dialect.name == "postgresql" else 3), after.statements


# --- create --------------------------------------------------------------------------------------

def test_create_item(api, db, admin, custom):
    config_list, _ = custom
    response = api.post("/api/config-lists/lead_source/items", as_=admin, json={
        "label": "Referral", "value": "referral", "color": "#AABBCC", "icon": "users", "stage_type": "done",
        "probability": 40, "email_template_id": "tmpl-1", "email_trigger_active": True,
        "is_system": True, "list_id": "elsewhere", "unknown": "ignored",
    })
    assert response.status == 201, response
    item = response.json["item"]
    assert item["label"] == "Referral" and item["value"] == "referral" and item["color"] == "#aabbcc"
    assert item["position"] == 99  # default position
    assert item["is_system"] == 0 and item["list_id"] == config_list.id  # read-only fields ignored
    assert item["email_trigger_active"] == 1 and item["is_default"] == 0 and item["probability"] == 40
    assert db.get(ConfigListItem, item["id"]).icon == "users"
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == item["id"]))
    assert entry.action == "created" and entry.actor_id == admin.id


def test_create_default_item_clears_previous_default(api, db, admin, custom):
    _, items = custom
    response = api.post("/api/config-lists/lead_source/items", as_=admin,
                        json={"label": "New default", "value": "nd", "is_default": True, "position": 3})
    assert response.status == 201 and response.json["item"]["position"] == 3
    defaults = [i for i in api.get("/api/config-lists/lead_source/items", as_=admin).json["items"] if i["is_default"]]
    assert [i["value"] for i in defaults] == ["nd"]
    # another list's default is untouched
    assert config_item(db, "task_status", "todo").is_default is True


@pytest.mark.parametrize("body, field", [
    ({"value": "x"}, "label"),
    ({"label": "X"}, "value"),
    ({"label": "  ", "value": "x"}, "label"),
    ({"label": "X", "value": "x", "color": "blue"}, "color"),
    ({"label": "X", "value": "x", "color": "#fff\n"}, "color"),
    ({"label": "X", "value": "x", "color": 255}, "color"),
    ({"label": "X", "value": "x", "position": "first"}, "position"),
    ({"label": "X", "value": "x", "probability": 140}, "probability"),
    ({"label": "X", "value": "x", "is_default": "perhaps"}, "is_default"),
    ({"label": ["X"], "value": "x"}, "label"),
    # flags are true/false or 1/0 (issue 9 item 3)
    ({"label": "X", "value": "x", "is_default": "yes"}, "is_default"),
    ({"label": "X", "value": "x", "email_trigger_active": "on"}, "email_trigger_active"),
    ({"label": "X", "value": "x", "is_default": "true"}, "is_default"),
])
def test_create_item_validation(api, admin, custom, body, field):
    response = api.post("/api/config-lists/lead_source/items", as_=admin, json=body)
    assert response.status == 400
    assert field in [d["field"] for d in response.json["details"]]


def test_create_item_errors(api, admin, viewer, custom):
    body = {"label": "X", "value": "x"}
    assert api.post("/api/config-lists/nothing_here/items", as_=admin, json=body).status == 404
    assert api.post("/api/config-lists/lead_source/items", as_=viewer, json=body).status == 403
    response = api.post("/api/config-lists/lead_source/items", as_=admin, json={"label": "Again", "value": "alpha"})
    assert response.status == 409


def test_create_item_on_system_list(api, db, admin):
    response = api.post("/api/config-lists/task_status/items", as_=admin, json={"label": "QA", "value": "qa"})
    assert response.status == 201 and response.json["item"]["is_system"] == 0


# --- update --------------------------------------------------------------------------------------

def test_update_item(api, db, admin, custom):
    _, items = custom
    url = f"/api/config-lists/lead_source/items/{items['a'].id}"
    response = api.put(url, as_=admin, json={"label": "Alpha 2", "value": "alpha2", "color": None, "icon": "star",
                                             "position": 7, "probability": 12.5, "email_trigger_active": True,
                                             "is_system": True})
    assert response.status == 200, response
    item = response.json["item"]
    assert (item["label"], item["value"], item["icon"], item["position"], item["probability"]) == \
        ("Alpha 2", "alpha2", "star", 7, 12.5)
    assert item["email_trigger_active"] == 1 and item["is_system"] == 0
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == items["a"].id))
    assert entry.action == "updated" and entry.changes["label"] == {"from": "Alpha", "to": "Alpha 2"}


def test_setting_default_clears_previous_default(api, db, admin, custom):
    _, items = custom
    response = api.put(f"/api/config-lists/lead_source/items/{items['b'].id}", as_=admin, json={"is_default": True})
    assert response.status == 200 and response.json["item"]["is_default"] == 1
    listed = api.get("/api/config-lists/lead_source/items", as_=admin).json["items"]
    assert {i["value"]: i["is_default"] for i in listed} == {"zero": 0, "alpha": 0, "beta": 1}


def test_seeded_list_keeps_one_default(api, db, admin):
    in_progress = config_item(db, "task_status", "in_progress")
    response = api.put(f"/api/config-lists/task_status/items/{in_progress.id}", as_=admin, json={"is_default": True})
    assert response.status == 200
    defaults = [i["value"] for i in api.get("/api/config-lists/task_status/items", as_=admin).json["items"]
                if i["is_default"]]
    assert defaults == ["in_progress"]


def test_system_item_value_cannot_change(api, db, admin):
    done = config_item(db, "task_status", "done")
    url = f"/api/config-lists/task_status/items/{done.id}"
    response = api.put(url, as_=admin, json={"value": "finished", "label": "Finished"})
    assert response.status == 400 and response.json["details"][0]["field"] == "value"
    db.refresh(done)
    assert (done.value, done.label) == ("done", "Done")  # nothing of the request was written
    # other fields of a system item can change, and re-sending the same value is fine
    response = api.put(url, as_=admin, json={"value": "done", "label": "Finished", "color": "#000000"})
    assert response.status == 200
    assert (response.json["item"]["value"], response.json["item"]["label"]) == ("done", "Finished")


def test_update_item_errors(api, db, admin, viewer, custom):
    _, items = custom
    url = f"/api/config-lists/lead_source/items/{items['a'].id}"
    assert api.put(url, as_=admin, json={}).status == 400
    assert api.put(url, as_=admin, json={"unknown": 1}).status == 400
    assert api.put(url, as_=admin, json={"label": None}).status == 400
    assert api.put(url, as_=admin, json={"position": -1}).status == 400
    assert api.put(url, as_=admin, json={"is_default": "yes"}).status == 400  # a flag is true/false or 1/0
    assert api.put(url, as_=admin, json={"value": "beta"}).status == 409
    assert api.put(url, as_=viewer, json={"label": "X"}).status == 403
    assert api.put(f"/api/config-lists/lead_source/items/{MISSING}", as_=admin, json={"label": "X"}).status == 404
    assert api.put(f"/api/config-lists/nothing_here/items/{items['a'].id}", as_=admin, json={"label": "X"}).status == 404
    other = config_item(db, "task_status", "todo")
    # an item of another list is not found through this list's key
    assert api.put(f"/api/config-lists/lead_source/items/{other.id}", as_=admin, json={"label": "X"}).status == 404


# --- reorder -------------------------------------------------------------------------------------

def test_reorder(api, db, admin, custom):
    _, items = custom
    order = [items["b"].id, items["z"].id, items["a"].id]
    response = api.put("/api/config-lists/lead_source/reorder", as_=admin, json={"item_ids": order})
    assert response.status == 200 and response.json == {"ok": True}
    listed = api.get("/api/config-lists/lead_source/items", as_=admin).json["items"]
    assert [(i["id"], i["position"]) for i in listed] == [(order[0], 0), (order[1], 1), (order[2], 2)]


def test_reorder_rejects_ids_of_another_list(api, db, admin, custom):
    _, items = custom
    foreign = config_item(db, "task_status", "todo")
    response = api.put("/api/config-lists/lead_source/reorder", as_=admin,
                       json={"item_ids": [items["b"].id, foreign.id]})
    assert response.status == 400
    db.refresh(items["b"])
    assert items["b"].position == 1  # nothing moved
    assert api.put("/api/config-lists/lead_source/reorder", as_=admin, json={"item_ids": [MISSING]}).status == 400


def test_reorder_errors(api, admin, viewer, custom):
    _, items = custom
    url = "/api/config-lists/lead_source/reorder"
    assert api.put(url, as_=admin, json={"item_ids": []}).status == 400
    assert api.put(url, as_=admin, json={"item_ids": "abc"}).status == 400
    assert api.put(url, as_=admin, json={"item_ids": [items["a"].id, items["a"].id]}).status == 400
    assert api.put(url, as_=viewer, json={"item_ids": [items["a"].id]}).status == 403
    assert api.put("/api/config-lists/nothing_here/reorder", as_=admin, json={"item_ids": [items["a"].id]}).status == 404


# --- delete --------------------------------------------------------------------------------------

def test_delete_item(api, db, admin, custom):
    _, items = custom
    item_id = items["a"].id
    response = api.delete(f"/api/config-lists/lead_source/items/{item_id}", as_=admin)
    assert response.status == 200 and response.json == {"ok": True}
    db.expire_all()
    assert db.get(ConfigListItem, item_id) is None
    assert db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == item_id, HistoryEntry.action == "deleted"))
    assert api.delete(f"/api/config-lists/lead_source/items/{item_id}", as_=admin).status == 404


def test_system_items_cannot_be_deleted(api, db, admin):
    todo = config_item(db, "task_status", "todo")
    response = api.delete(f"/api/config-lists/task_status/items/{todo.id}", as_=admin)
    assert response.status == 400 and "error" in response.json
    db.expire_all()
    assert db.get(ConfigListItem, todo.id) is not None


def test_delete_item_errors(api, db, admin, viewer, custom):
    _, items = custom
    assert api.delete(f"/api/config-lists/lead_source/items/{items['a'].id}", as_=viewer).status == 403
    assert api.delete(f"/api/config-lists/nothing_here/items/{items['a'].id}", as_=admin).status == 404
    other = config_item(db, "task_status", "todo")
    assert api.delete(f"/api/config-lists/lead_source/items/{other.id}", as_=admin).status == 404


def test_manage_granted_by_override(api, db):
    lead = make_user(db, access_level="lead")
    assert api.post("/api/config-lists/task_phase/items", as_=lead, json={"label": "X", "value": "x"}).status == 403
    grant(db, lead, "config-lists", "manage")
    assert api.post("/api/config-lists/task_phase/items", as_=lead, json={"label": "X", "value": "x"}).status == 201


@pytest.mark.parametrize("field, value", [
    ("probability", True), ("probability", "50"), ("position", True), ("position", "5"), ("position", 2.5),
])
def test_numbers_are_numbers(api, db, admin, custom, field, value):
    """probability is a number and position an integer (decisions.md section 4: a wrong type is 400), not a
    boolean or a string that looks like one."""
    _, items = custom
    created = api.post("/api/config-lists/lead_source/items", as_=admin, json={"label": "X", "value": "x", field: value})
    assert created.status == 400 and field in [d["field"] for d in created.json["details"]], created
    updated = api.put(f"/api/config-lists/lead_source/items/{items['a'].id}", as_=admin, json={field: value})
    assert updated.status == 400 and field in [d["field"] for d in updated.json["details"]], updated
    # numbers still pass: an integer probability, an integer position
    good = api.post("/api/config-lists/lead_source/items", as_=admin,
                    json={"label": "Y", "value": "y", "probability": 40, "position": 3})
    assert good.status == 201 and (good.json["item"]["probability"], good.json["item"]["position"]) == (40, 3)


@pytest.mark.parametrize("change", [{"is_default": True}, {"value": "renamed"}])
def test_an_update_that_touches_the_list_locks_it_first(api, db, admin, custom, monkeypatch, change):
    """A list has at most one default and unique values (docs/decisions/config_lists.md): an update that sets
    the default or changes the value locks the list row, as create and reorder do, before it checks and writes
    (area contract, Writes: concurrency through core/locks.py), so two concurrent requests cannot both pass."""
    from chalicelib.areas.config_lists import service
    from chalicelib.core.models import ConfigList

    config_list, items = custom
    locked = []
    real = service.lock_row

    def spy(session, model, row_id, **kw):
        locked.append((model, row_id))
        return real(session, model, row_id, **kw)

    monkeypatch.setattr(service, "lock_row", spy)
    answer = api.put(f"/api/config-lists/lead_source/items/{items['a'].id}", as_=admin, json=change)
    assert answer.status == 200, answer
    assert (ConfigList, config_list.id) in locked
    locked.clear()
    assert api.put(f"/api/config-lists/lead_source/items/{items['a'].id}", as_=admin,
                   json={"label": "Only a label"}).status == 200
    assert locked == []  # a plain edit of one item's own fields needs no list lock
