"""Save-back audit (session 25): a record read and sent back unchanged is no edit. A task's or page's update kept
no history for such a request but still moved `updated_at` (a page also named the sender its last editor); an SLA
policy whose company was deleted since could not be saved back at all (its company was checked again)."""
from datetime import timedelta

from sqlalchemy import text

from chalicelib.core.ids import utcnow
from tests.areas.deals.factories import make_company
from tests.factories import make_user


def test_a_task_sent_back_as_read_keeps_its_time(api, db, exec_user):
    made = api.post("/api/tasks", as_=exec_user, json={"title": "T", "estimated_hours": 1.1, "estimate_total_cost": 10.1})
    assert made.status == 201, made.json
    task_id = made.json["task"]["id"]
    db.execute(text("UPDATE tasks SET updated_at = :aged WHERE id = :id"), {"aged": utcnow() - timedelta(days=1), "id": task_id})
    db.commit()
    task = api.get(f"/api/tasks/{task_id}", as_=exec_user).json["task"]
    same = api.put(f"/api/tasks/{task_id}", as_=exec_user, json=task)
    assert same.status == 200 and same.json["task"]["updated_at"] == task["updated_at"]
    edited = api.put(f"/api/tasks/{task_id}", as_=exec_user, json={**task, "title": "T2"})
    assert edited.json["task"]["updated_at"] > task["updated_at"]


def test_a_page_sent_back_as_read_keeps_its_editor_and_time(api, db, exec_user):
    made = api.post("/api/pages", as_=exec_user, json={"title": "P", "content": "x"})
    assert made.status == 201, made.json
    other = make_user(db, access_level="executive")
    page = api.get(f"/api/pages/{made.json['page']['id']}", as_=other).json["page"]
    same = api.patch(f"/api/pages/{page['id']}", as_=other, json=page)
    assert same.status == 200, same.json
    assert (same.json["page"]["updated_by"], same.json["page"]["updated_at"]) == (page["updated_by"], page["updated_at"])
    edited = api.patch(f"/api/pages/{page['id']}", as_=other, json={**page, "title": "P2"})
    assert edited.json["page"]["updated_by"] == other.id


def test_an_sla_policy_whose_company_was_deleted_saves_back(api, db, exec_user):
    company = make_company(db)
    made = api.post("/api/sla/policies", as_=exec_user, json={"name": "Gold", "company_id": company.id, "rules": []})
    assert made.status == 201, made.json
    policy_id = made.json["policy"]["id"]
    assert api.delete(f"/api/deals/companies/{company.id}", as_=exec_user).status in (200, 204)
    policy = [p for p in api.get("/api/sla/policies", as_=exec_user).json["policies"] if p["id"] == policy_id][0]
    body = {"name": "Gold plus", "description": policy["description"], "company_id": policy["company_id"],
            "rules": [{k: r[k] for k in ("priority_id", "response_hours", "resolution_hours")} for r in policy["rules"]]}
    answer = api.put(f"/api/sla/policies/{policy_id}", as_=exec_user, json=body)
    assert answer.status == 200, answer.json
    other = api.put(f"/api/sla/policies/{policy_id}", as_=exec_user, json={"company_id": "no-such-company"})
    assert other.status == 400 and other.json["details"][0]["field"] == "company_id"
