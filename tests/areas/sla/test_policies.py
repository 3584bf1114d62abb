"""SLA policies at /api/sla/policies (tool sla: view reads, update writes, manage deletes)."""
import pytest

from tests.areas.deals.factories import make_company
from tests.factories import config_item


def priorities(db):
    return config_item(db, "task_priority", "high"), config_item(db, "task_priority", "low")


@pytest.mark.smoke
def test_policy_lifecycle(api, db, exec_user):
    high, low = priorities(db)
    company = make_company(db, name="Acme")
    created = api.post("/api/sla/policies", as_=exec_user, json={
        "name": " Gold ", "description": "d", "company_id": company.id,
        "rules": [{"priority_id": low.id, "response_hours": 8, "resolution_hours": 48},
                  {"priority_id": high.id, "response_hours": 1, "resolution_hours": 4.5}]})
    assert created.status == 201, created
    policy = created.json["policy"]
    assert policy["name"] == "Gold" and policy["company_name"] == "Acme" and policy["created_by"] == exec_user.id
    by_priority = {r["priority_id"]: r for r in policy["rules"]}
    assert by_priority[high.id]["resolution_hours"] == 4.5 and by_priority[high.id]["priority_label"] == high.label
    assert by_priority[low.id]["priority_value"] == "low" and by_priority[low.id]["priority_color"] == low.color
    assert [r["priority_position"] for r in policy["rules"]] == sorted(r["priority_position"] for r in policy["rules"])

    api.post("/api/sla/policies", as_=exec_user, json={"name": "Basic"})
    listed = api.get(f"/api/sla/policies?company_id={company.id}", as_=exec_user).json
    assert [p["id"] for p in listed["policies"]] == [policy["id"]] and listed["total"] == 1
    assert [p["name"] for p in api.get("/api/sla/policies", as_=exec_user).json["policies"]] == ["Basic", "Gold"]

    path = f"/api/sla/policies/{policy['id']}"
    renamed = api.put(path, as_=exec_user, json={"name": "Gold+"}).json["policy"]
    assert renamed["name"] == "Gold+" and len(renamed["rules"]) == 2  # rules kept when not given
    replaced = api.put(path, as_=exec_user, json={"rules": [
        {"priority_id": high.id, "response_hours": 2, "resolution_hours": 6}]}).json["policy"]
    assert [(r["priority_id"], r["response_hours"]) for r in replaced["rules"]] == [(high.id, 2)]
    assert api.put(path, as_=exec_user, json={"rules": []}).json["policy"]["rules"] == []

    assert api.delete(path, as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/sla/policies?company_id={company.id}", as_=exec_user).json["policies"] == []
    assert api.put(path, as_=exec_user, json={"name": "x"}).status == 404
    assert api.delete(path, as_=exec_user).status == 404


def test_policy_rules_are_checked(api, db, exec_user):
    high, _ = priorities(db)
    status = config_item(db, "task_status", "todo")
    not_priority = api.post("/api/sla/policies", as_=exec_user, json={
        "name": "P", "rules": [{"priority_id": status.id, "response_hours": 1, "resolution_hours": 2}]})
    assert not_priority.status == 400 and not_priority.json["details"][0]["field"] == "rules.0.priority_id"
    twice = api.post("/api/sla/policies", as_=exec_user, json={"name": "P", "rules": [
        {"priority_id": high.id, "response_hours": 1, "resolution_hours": 2},
        {"priority_id": high.id, "response_hours": 3, "resolution_hours": 4}]})
    assert twice.status == 400 and twice.json["details"][0]["field"] == "rules.1.priority_id"
    missing = api.post("/api/sla/policies", as_=exec_user, json={"name": "P", "rules": [{"priority_id": high.id}]})
    assert missing.status == 400
    negative = api.post("/api/sla/policies", as_=exec_user, json={
        "name": "P", "rules": [{"priority_id": high.id, "response_hours": -1, "resolution_hours": 2}]})
    assert negative.status == 400
    assert api.post("/api/sla/policies", as_=exec_user, json={"description": "no name"}).status == 400
    company = api.post("/api/sla/policies", as_=exec_user, json={"name": "P", "company_id": "nope"})
    assert company.status == 400 and company.json["details"][0]["field"] == "company_id"
    made = api.post("/api/sla/policies", as_=exec_user, json={"name": "P"}).json["policy"]
    bad_update = api.put(f"/api/sla/policies/{made['id']}", as_=exec_user, json={"rules": [
        {"priority_id": status.id, "response_hours": 1, "resolution_hours": 2}]})
    assert bad_update.status == 400
    assert api.get("/api/sla/policies", as_=exec_user).json["policies"][0]["rules"] == []


def test_policy_permissions(api, db, exec_user, employee):
    made = api.post("/api/sla/policies", as_=exec_user, json={"name": "P"}).json["policy"]
    assert api.get("/api/sla/policies", as_=employee).status == 200  # every sla holder sees every policy
    assert api.post("/api/sla/policies", as_=employee, json={"name": "Q"}).status == 403
    assert api.put(f"/api/sla/policies/{made['id']}", as_=employee, json={"name": "Q"}).status == 403
    assert api.delete(f"/api/sla/policies/{made['id']}", as_=employee).status == 403


def test_policy_list_costs_constant_statements(api, db, exec_user, count_queries):
    from chalicelib.areas.sla.models import SlaPolicy, SlaPolicyRule

    high, low = priorities(db)

    def grow(n):
        for i in range(n):
            company = make_company(db)
            policy = SlaPolicy(name=f"P{i}", company_id=company.id)
            db.add(policy)
            db.flush()
            db.add_all([SlaPolicyRule(policy_id=policy.id, priority_id=high.id, response_hours=1, resolution_hours=2),
                        SlaPolicyRule(policy_id=policy.id, priority_id=low.id, response_hours=3, resolution_hours=4)])
        db.flush()

    counts = []
    for n in (5, 95):
        grow(n)
        with count_queries() as counter:
            answer = api.get("/api/sla/policies", as_=exec_user)
        assert answer.status == 200 and all(len(p["rules"]) == 2 and p["company_name"] for p in answer.json["policies"])
        counts.append(counter.count)
    assert len(answer.json["policies"]) == 100
    assert counts[0] == counts[1], counts


def test_rule_hours_must_be_json_numbers(api, db, exec_user):
    """Hours are numbers (document 1, SLA policy rules); a boolean or a string is a wrong type: 400
    (decisions.md section 4), never `true` taken as 1 hour."""
    high, _ = priorities(db)
    for hours in (True, False, "3"):
        for field in ("response_hours", "resolution_hours"):
            rule = {"priority_id": high.id, "response_hours": 1, "resolution_hours": 2, field: hours}
            answer = api.post("/api/sla/policies", as_=exec_user, json={"name": "P", "rules": [rule]})
            assert answer.status == 400, (field, hours, answer)
            assert answer.json["details"][0]["field"] == f"rules.0.{field}"
    made = api.post("/api/sla/policies", as_=exec_user, json={"name": "P", "rules": [
        {"priority_id": high.id, "response_hours": 1, "resolution_hours": 2.5}]})
    assert made.status == 201 and made.json["policy"]["rules"][0]["resolution_hours"] == 2.5
    updated = api.put(f"/api/sla/policies/{made.json['policy']['id']}", as_=exec_user, json={"rules": [
        {"priority_id": high.id, "response_hours": True, "resolution_hours": 2}]})
    assert updated.status == 400
