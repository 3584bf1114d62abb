"""Session 25 (config values audit): a task status, task priority or service type that records still name is not
deleted (409 naming what uses it, nothing changed). A deleted status left its tasks with none, which counts as open,
so completed tasks reopened; a deleted priority took the service level rules for it along; a deleted service type
left budget, invoice and pricing lines naming nothing and dropped the ledger's account mapping. Other lists' items
(project types, deal stages, custom lists) are labels: their records lose the label, as before."""
from decimal import Decimal

from sqlalchemy import select

from chalicelib.areas.sla.models import SlaPolicy, SlaPolicyRule
from chalicelib.areas.tasks.models import Task
from chalicelib.core.models import ConfigListItem
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.tasks.factories import make_task


def _item(api, user, key, **json):
    made = api.post(f"/api/config-lists/{key}/items", as_=user, json=json)
    assert made.status == 201, made.json
    return made.json["item"]["id"]


def _delete(api, user, key, item_id):
    return api.delete(f"/api/config-lists/{key}/items/{item_id}", as_=user)


def test_a_status_in_use_is_not_deleted_and_a_free_one_is(api, db, exec_user):
    shipped = _item(api, exec_user, "task_status", label="Shipped", value="shipped", stage_type="done")
    task = make_task(db, status_id=shipped)
    refused = _delete(api, exec_user, "task_status", shipped)
    assert refused.status == 409, refused.json
    assert "1 tasks" in refused.json["error"] and refused.json["details"][0]["field"] == "item_id"
    db.expire_all()
    assert db.get(ConfigListItem, shipped) is not None and db.get(Task, task.id).status_id == shipped
    # moved to another status, the item goes
    other = _item(api, exec_user, "task_status", label="Released", value="released", stage_type="done")
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"status_id": other}).status == 200
    assert _delete(api, exec_user, "task_status", shipped).status == 200


def test_a_priority_named_by_a_service_level_rule_is_not_deleted(api, db, exec_user):
    urgent = _item(api, exec_user, "task_priority", label="Urgent S25", value="urgent_s25")
    policy = SlaPolicy(name="Support")
    db.add(policy)
    db.flush()
    db.add(SlaPolicyRule(policy_id=policy.id, priority_id=urgent, response_hours=1, resolution_hours=4))
    db.flush()
    refused = _delete(api, exec_user, "task_priority", urgent)
    assert refused.status == 409 and "1 service level rules" in refused.json["error"]
    assert db.scalar(select(SlaPolicyRule.id).where(SlaPolicyRule.priority_id == urgent)) is not None


def test_a_service_type_on_a_budget_line_is_not_deleted(api, db, exec_user):
    seo = _item(api, exec_user, "service_type", label="SEO", value="seo_s25")
    budget = make_budget(db)
    make_line_item(db, budget, service_type_id=seo, quantity=Decimal("1"), unit_price=Decimal("10"))
    refused = _delete(api, exec_user, "service_type", seo)
    assert refused.status == 409 and "1 budget lines" in refused.json["error"]
    unused = _item(api, exec_user, "service_type", label="Unused", value="unused_s25")
    assert _delete(api, exec_user, "service_type", unused).status == 200


def test_a_project_type_in_use_is_still_deleted_as_a_label(api, db, exec_user):
    popup = _item(api, exec_user, "project_type", label="Pop-up", value="popup_s25")
    made = api.post("/api/projects", as_=exec_user, json={"name": "P", "type_id": popup})
    assert made.status == 201
    assert _delete(api, exec_user, "project_type", popup).status == 200
    assert api.get(f"/api/projects/{made.json['project']['id']}", as_=exec_user).json["project"]["type_id"] is None
