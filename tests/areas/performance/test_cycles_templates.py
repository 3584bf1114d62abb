"""Review cycles and review templates at /api/performance (document 2, decisions.md sections 6 and 9)."""
import pytest

from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import make_user


@pytest.mark.smoke
def test_cycle_lifecycle(api, db, exec_user, employee):
    created = api.post("/api/performance/cycles", as_=exec_user, json={
        "type": "quarterly", "name": " Q1 2026 ", "period_start": "2026-01-01", "period_end": "2026-03-31",
        "due_date": "2026-04-15"})
    assert created.status == 201, created
    cycle = created.json["cycle"]
    assert cycle["status"] == "draft" and cycle["name"] == "Q1 2026" and cycle["due_date"] == "2026-04-15"
    path = f"/api/performance/cycles/{cycle['id']}"
    # non-executives see only open and closed cycles
    assert [c["id"] for c in api.get("/api/performance/cycles", as_=exec_user).json["cycles"]] == [cycle["id"]]
    assert api.get("/api/performance/cycles", as_=employee).json["cycles"] == []
    assert api.get(path, as_=employee).status == 404
    head = make_user(db, access_level="head")
    assert api.get(path, as_=head).status == 404
    # a head (performance:manage) may still open it
    opened = api.put(path, as_=head, json={"status": "open"})
    assert opened.status == 200 and opened.json["cycle"]["status"] == "open"
    detail = api.get(path, as_=employee).json["cycle"]
    assert detail["progress"] == {"total": 0, "completed": 0, "draft": 0, "self_assessment": 0, "in_review": 0,
                                  "ready_for_review": 0}
    assert api.put(path, as_=exec_user, json={"status": "draft"}).status == 409
    assert api.put(path, as_=exec_user, json={"status": "closed"}).json["cycle"]["status"] == "closed"
    assert api.put(path, as_=exec_user, json={"status": "open"}).json["cycle"]["status"] == "open"  # reopen
    assert api.delete(path, as_=exec_user).status == 400  # only drafts
    assert api.put(path, as_=exec_user, json={"period_end": "2025-12-01"}).status == 400
    assert api.put(path, as_=exec_user, json={"status": "archived"}).status == 400
    assert api.post("/api/performance/cycles", as_=employee, json={
        "type": "annual", "name": "x", "period_start": "2026-01-01", "period_end": "2026-12-31"}).status == 403
    draft = api.post("/api/performance/cycles", as_=exec_user, json={
        "type": "annual", "name": "FY", "period_start": "2026-01-01", "period_end": "2026-12-31"}).json["cycle"]
    assert api.delete(f"/api/performance/cycles/{draft['id']}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/performance/cycles/{draft['id']}", as_=exec_user).status == 404


def test_cycle_input_is_checked(api, exec_user):
    for body in ({"type": "monthly", "name": "x", "period_start": "2026-01-01", "period_end": "2026-02-01"},
                 {"type": "annual", "period_start": "2026-01-01", "period_end": "2026-02-01"},
                 {"type": "annual", "name": "x", "period_start": "2026-13-01", "period_end": "2026-02-01"},
                 {"type": "annual", "name": "x", "period_start": "2026-03-01", "period_end": "2026-02-01"}):
        answer = api.post("/api/performance/cycles", as_=exec_user, json=body)
        assert answer.status == 400 and "error" in answer.json, body


def test_cycle_progress_counts(api, db, exec_user):
    cycle = make_cycle(db)
    for status in ("draft", "draft", "in_review", "completed"):
        make_review(db, cycle=cycle, user=make_user(db), status=status)
    progress = api.get(f"/api/performance/cycles/{cycle.id}", as_=exec_user).json["cycle"]["progress"]
    assert progress == {"total": 4, "completed": 1, "draft": 2, "self_assessment": 0, "in_review": 1,
                        "ready_for_review": 0}


def test_template_crud_and_assignment(api, db, exec_user, employee):
    someone = make_user(db)
    created = api.post("/api/performance/templates", as_=exec_user, json={
        "name": "Engineer", "items": [{"area": "Delivery", "label": "Ships", "is_mandatory": True},
                                      {"area": "Craft", "label": "Quality"}]})
    assert created.status == 201, created
    template = created.json["template"]
    assert [(i["label"], i["is_mandatory"], i["sort_order"]) for i in template["items"]] == [
        ("Ships", 1, 0), ("Quality", 0, 1)]
    path = f"/api/performance/templates/{template['id']}"
    assigned = api.post(f"{path}/users", as_=exec_user, json={"user_ids": [employee.id, someone.id]})
    assert sorted(assigned.json["template"]["user_ids"]) == sorted([employee.id, someone.id])
    other = api.post("/api/performance/templates", as_=exec_user, json={"name": "Other"}).json["template"]
    api.post(f"/api/performance/templates/{other['id']}/users", as_=exec_user, json={"user_ids": [someone.id]})
    assert api.get(path, as_=employee).json["template"]["user_ids"] == [employee.id]  # replaced for someone
    assert api.post(f"{path}/users", as_=exec_user, json={"user_ids": ["missing"]}).status == 400
    replaced = api.put(path, as_=exec_user, json={"items": [{"area": "X", "label": "Only"}]}).json["template"]
    assert [i["label"] for i in replaced["items"]] == ["Only"] and replaced["name"] == "Engineer"
    assert api.delete(f"{path}/users/{employee.id}", as_=exec_user).json == {"ok": True}
    assert api.get(path, as_=exec_user).json["template"]["user_ids"] == []
    assert api.post("/api/performance/templates", as_=employee, json={"name": "x"}).status == 403
    assert len(api.get("/api/performance/templates", as_=employee).json["templates"]) == 2
    assert api.delete(path, as_=exec_user).json == {"ok": True}
    assert api.get(path, as_=exec_user).status == 404


def test_a_template_lists_at_most_500_user_ids(api, db, exec_user):
    """decisions.md section 4: each assignment call takes at most 500 users but they add up on the template;
    its record lists the first 500 by user id (detail and list)."""
    from chalicelib.areas.performance.models import ReviewTemplateAssignment
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.models import User

    template = api.post("/api/performance/templates", as_=exec_user, json={"name": "Everyone"}).json["template"]
    people = insert_rows(db, User, [{"id": f"00000000-0000-0000-0000-{n:012d}", "email": f"staff{n:03d}@cap.test",
                                     "name": f"Staff {n:03d}", "access_level": "employee", "is_active": True}
                                    for n in range(501)])
    insert_rows(db, ReviewTemplateAssignment, [{"user_id": person["id"], "template_id": template["id"]}
                                               for person in people])
    db.flush()
    detail = api.get(f"/api/performance/templates/{template['id']}", as_=exec_user).json["template"]
    assert len(detail["user_ids"]) == 500 and detail["user_ids"][0] == people[0]["id"]
    listed = api.get("/api/performance/templates", as_=exec_user).json["templates"]
    assert [len(t["user_ids"]) for t in listed if t["id"] == template["id"]] == [500]


def test_a_template_edit_keeps_the_items_it_names(api, db, exec_user, employee):
    """An item named by `id` in a PUT keeps its id, so the KPI ratings copied from it keep their template_item_id
    and an annual review's kpi_aggregation (keyed by template item id, document 2) still counts the quarters rated
    before the edit. Every PUT used to give every item a new id."""
    from chalicelib.areas.performance.models import ReviewKpiRating as KpiRating

    created = api.post("/api/performance/templates", as_=exec_user, json={
        "name": "Engineer", "items": [{"area": "Delivery", "label": "Ships"}, {"area": "Craft", "label": "Quality"},
                                      {"area": "Team", "label": "Helps"}]}).json["template"]
    ships, quality, helps = (item["id"] for item in created["items"])
    path = f"/api/performance/templates/{created['id']}"
    api.post(f"{path}/users", as_=exec_user, json={"user_ids": [employee.id]})
    review = api.post("/api/performance/reviews", as_=exec_user, json={
        "cycle_id": make_cycle(db).id, "user_id": employee.id}).json["review"]

    edited = api.put(path, as_=exec_user, json={"items": [
        {"id": quality, "area": "Craft", "label": "Code quality", "is_mandatory": True},
        {"area": "Growth", "label": "Learns"},
        {"id": ships, "area": "Delivery", "label": "Ships"}]})
    assert edited.status == 200, edited
    items = edited.json["template"]["items"]
    assert [(i["id"], i["label"], i["is_mandatory"], i["sort_order"]) for i in items] == [
        (quality, "Code quality", 1, 0), (items[1]["id"], "Learns", 0, 1), (ships, "Ships", 0, 2)]
    assert items[1]["id"] not in (ships, quality, helps)
    db.expire_all()
    ratings = {r.label: r.template_item_id for r in db.query(KpiRating).filter(KpiRating.review_id == review["id"])}
    assert ratings == {"Ships": ships, "Quality": quality, "Helps": None}  # the removed item's ratings let go

    for items, field in [([{"id": helps, "area": "Team", "label": "Helps"}], "items.0.id"),  # deleted above
                         ([{"id": "not-an-item", "area": "A", "label": "B"}], "items.0.id"),
                         ([{"id": ships, "area": "A", "label": "B"}, {"id": ships, "area": "A", "label": "C"}],
                          "items")]:
        answer = api.put(path, as_=exec_user, json={"items": items})
        assert answer.status == 400 and answer.json["details"][0]["field"] == field, (items, answer.json)
    other = api.post("/api/performance/templates", as_=exec_user, json={
        "name": "Other", "items": [{"area": "A", "label": "B"}]}).json["template"]
    answer = api.put(path, as_=exec_user, json={"items": [{"id": other["items"][0]["id"], "area": "A", "label": "B"}]})
    assert answer.status == 400  # another template's item
    kept = [i["id"] for i in edited.json["template"]["items"]]
    assert [i["id"] for i in api.get(path, as_=exec_user).json["template"]["items"]] == kept  # refusals wrote nothing
