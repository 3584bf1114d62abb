"""Portal budgets (list, detail, approve) and notes (client-visible, at most 100, create and reply)."""
from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from chalicelib.areas.budgets.models import Budget
from chalicelib.areas.notes.models import Note
from chalicelib.core.models import HistoryEntry
from chalicelib.core.notify import Notification
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_deal
from tests.areas.portal.conftest import TOKEN, make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def test_budgets_linked_to_projects_or_deals(portal, db):
    mine, other = make_client(db), make_client(db)
    project = make_project(db, company_id=mine.id)
    deal = make_deal(db, company_id=mine.id)
    on_project = make_budget(db, resource_id=project.id, notes="internal: margin 40%", name="Build",
                             status="pending_approval")
    on_deal = make_budget(db, resource_type="deal", resource_id=deal.id, name="Proposal budget", status="active")
    foreign = make_budget(db, resource_id=make_project(db, company_id=other.id).id, status="pending_approval")
    make_budget(db)  # a project of no company
    make_line_item(db, on_project, description="Design", quantity=2, unit_price=150)
    listed = portal.get("/budgets", mine).json["budgets"]
    assert {b["name"] for b in listed} == {"Build", "Proposal budget"}
    assert "notes" not in listed[0] and "owner_id" not in listed[0]
    detail = portal.get(f"/budgets/{on_project.id}", mine)
    assert detail.status == 200
    assert [(i["description"], i["amount"]) for i in detail.json["lineItems"]] == [("Design", 300.0)]
    assert portal.get(f"/budgets/{on_deal.id}", mine).status == 200
    assert portal.get(f"/budgets/{foreign.id}", mine).status == 404
    assert portal.post(f"/budgets/{foreign.id}/approve", mine, role="admin").status == 404


def test_approve_only_pending_with_history_and_owner_notified(portal, db):
    mine = make_client(db)
    owner = make_user(db, name="Owen Owner")
    # a member of the budget's project: the owner is told only when they may read the budget (budgets decisions)
    budget = make_budget(db, resource_id=make_project(db, company_id=mine.id, members=[owner]).id,
                         status="pending_approval", owner_id=owner.id)
    assert portal.post(f"/budgets/{budget.id}/approve", mine, role="viewer").status == 403
    answer = portal.post(f"/budgets/{budget.id}/approve", mine, role="collaborator", user="pu-9")
    assert answer.status == 200 and answer.json == {"ok": True}
    db.expire_all()
    assert db.get(Budget, budget.id).status == "approved"
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == budget.id))
    assert entry.action == "approved" and entry.changes["approved_by"] == "portal:pu-9"
    assert db.scalar(select(Notification.type).where(Notification.user_id == owner.id)) == "portal_budget_approved"
    again = portal.post(f"/budgets/{budget.id}/approve", mine, role="admin")
    assert again.status == 409
    draft = make_budget(db, resource_id=make_project(db, company_id=mine.id).id, status="draft")
    assert portal.post(f"/budgets/{draft.id}/approve", mine, role="admin").status == 404  # not shown (session 28)


def test_notes_client_visible_only_and_capped(portal, db):
    mine, other = make_client(db), make_client(db)
    project = make_project(db, company_id=mine.id)
    foreign = make_project(db, company_id=other.id)
    base = datetime(2030, 1, 1, tzinfo=timezone.utc)
    for index in range(105):
        db.add(Note(resource_type="project", resource_id=project.id, content=f"n{index}",
                    visibility=["executive", "client"], mentions=[], created_at=base + timedelta(minutes=index)))
    db.add(Note(resource_type="project", resource_id=project.id, content="internal", visibility=["executive"],
                mentions=[]))
    db.add(Note(resource_type="project", resource_id=foreign.id, content="theirs", visibility=["client"], mentions=[]))
    db.flush()
    notes = portal.get("/notes", mine).json["notes"]
    assert len(notes) == 100 and notes[0]["content"] == "n104"
    assert not {"internal", "theirs"} & {n["content"] for n in notes}


def test_create_note_and_reply(portal, db):
    mine, other = make_client(db), make_client(db)
    project = make_project(db, company_id=mine.id)
    foreign = make_project(db, company_id=other.id)
    body = {"resourceType": "project", "resourceId": project.id, "content": "Looks good", "portalUserId": "pu-3"}
    assert portal.post("/notes", mine, role="viewer", json=body).status == 403
    created = portal.post("/notes", mine, role="collaborator", json=body)
    assert created.status == 201, created
    note_id = created.json["id"]
    reply = portal.post("/notes", mine, role="admin", json={**body, "content": "And more", "parentId": note_id})
    assert reply.status == 201
    listed = portal.get("/notes", mine).json["notes"]
    assert {n["content"] for n in listed} == {"Looks good", "And more"} and listed[0]["from_client"] == 1
    internal = Note(resource_type="project", resource_id=project.id, content="x", visibility=["executive"], mentions=[])
    db.add(internal)
    db.flush()
    assert portal.post("/notes", mine, role="admin", json={**body, "parentId": internal.id}).status == 400
    assert portal.post("/notes", mine, role="admin", json={**body, "resourceId": foreign.id}).status == 400
    assert portal.post("/notes", mine, role="admin", json={**body, "resourceType": "deal"}).status == 400
    assert portal.post("/notes", mine, role="admin", json={**body, "content": "  "}).status == 400
    # staff see the client's note through the notes area
    note = db.get(Note, note_id)
    assert note.author_id is None and "client" in note.visibility and "employee" in note.visibility


def test_notes_and_budgets_cost_constant_statements(portal, db, count_queries):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)

    def add(n):
        for index in range(n):
            db.add(Note(resource_type="project", resource_id=project.id, content=f"c{index}", visibility=["client"],
                        mentions=[]))
            make_budget(db, resource_id=project.id, status="pending_approval")
        db.flush()

    add(5)
    with count_queries() as small:
        assert len(portal.get("/notes", mine).json["notes"]) == 5
        assert len(portal.get("/budgets", mine).json["budgets"]) == 5
    add(95)
    with count_queries() as large:
        assert len(portal.get("/notes", mine).json["notes"]) == 100
        assert len(portal.get("/budgets", mine).json["budgets"]) == 100
    assert large.count == small.count


def test_notes_on_the_companys_deals_and_budgets_are_listed(portal, db):
    """Document 3: GET /notes lists the client-visible notes across projects, deals, budgets and invoices."""
    mine, other = make_client(db), make_client(db)
    deal = make_deal(db, company_id=mine.id)
    budget = make_budget(db, resource_id=make_project(db, company_id=mine.id).id, status="pending_approval")
    deal_budget = make_budget(db, resource_type="deal", resource_id=deal.id, status="approved")
    foreign_deal = make_deal(db, company_id=other.id)
    foreign_budget = make_budget(db, resource_id=make_project(db, company_id=other.id).id, status="pending_approval")
    for kind, record, content in (("deal", deal, "on the deal"), ("budget", budget, "on the budget"),
                                  ("budget", deal_budget, "on the deal's budget"),
                                  ("deal", foreign_deal, "their deal"), ("budget", foreign_budget, "their budget")):
        db.add(Note(resource_type=kind, resource_id=record.id, content=content, visibility=["client"], mentions=[]))
    db.add(Note(resource_type="deal", resource_id=deal.id, content="internal", visibility=["executive"], mentions=[]))
    db.flush()
    listed = {(n["resource_type"], n["content"]) for n in portal.get("/notes", mine).json["notes"]}
    assert listed == {("deal", "on the deal"), ("budget", "on the budget"), ("budget", "on the deal's budget")}


def test_history_lists_the_budgets_approval(portal, db):
    """Document 3: GET /history holds the entries of the company's projects, invoices and budgets; a portal
    approval is logged in the budget's history and shows there."""
    mine, other = make_client(db), make_client(db)
    budget = make_budget(db, resource_type="deal", resource_id=make_deal(db, company_id=mine.id).id,
                         status="pending_approval")
    theirs = make_budget(db, resource_id=make_project(db, company_id=other.id).id, status="pending_approval")
    assert portal.post(f"/budgets/{budget.id}/approve", mine, role="admin").status == 200
    assert portal.post(f"/budgets/{theirs.id}/approve", other, role="admin").status == 200
    history = portal.get("/history", mine).json["history"]
    assert [(h["entity_type"], h["entity_id"], h["action"]) for h in history] == [("budget", budget.id, "approved")]


def test_a_body_that_is_not_json_is_400_after_the_boundary(portal, db):
    """A portal write that takes no body (the budget approval) answers 400 to a body that is not JSON, as every write
    does (decisions.md section 4; it acted on it), and only once the trust boundary passed: without the service token
    it is the 401 it was."""
    mine = make_client(db)
    budget = make_budget(db, resource_id=make_project(db, company_id=mine.id).id, status="pending_approval")
    sent = {"X-Portal-Company-Id": mine.id, "X-Portal-User-Role": "admin", "X-Portal-User-Id": "pu-1",
            "Content-Type": "application/json"}
    path = f"/api/portal/budgets/{budget.id}/approve"
    refused = portal.api.request("POST", path, headers={**sent, "Authorization": f"Bearer {TOKEN}"}, body=b"{not json")
    assert (refused.status, refused.json) == (400, {"error": "Request body must be valid JSON"})
    assert portal.api.request("POST", path, headers=sent, body=b"{not json").status == 401
    db.expire_all()
    assert db.get(Budget, budget.id).status == "pending_approval"
