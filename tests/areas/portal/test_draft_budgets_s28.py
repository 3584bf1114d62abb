"""Session 28 (audit "ignored"): the portal showed a client the budgets staff were still drafting (their total, line
items' unit prices, forecast date), while draft invoices are hidden. A client now sees a budget once it has left
`draft` (pending_approval, approved, active, completed, cancelled): a draft is not listed, answers 404 on its detail
and approval, and its history entries (GET /history, the dashboard's recentActivity) and client-visible notes are not
shown (docs/decisions/portal.md, session 28)."""
from chalicelib.areas.notes.models import Note
from chalicelib.core import history as core_history
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _drafted(db, company, **kw):
    """A draft budget of a project of `company`, with a priced line and a staff history entry."""
    budget = make_budget(db, resource_id=make_project(db, company_id=company.id).id, status="draft", **kw)
    make_line_item(db, budget, description="Design", quantity=2, unit_price=150)
    core_history.record(db, entity_type="budget", entity_id=budget.id, action="line_item_added",
                        actor_id=make_user(db).id)
    db.flush()
    return budget


def _get(portal, path, company):
    answer = portal.get(path, company)
    assert answer.status == 200, answer
    return answer.json


def test_a_draft_budget_is_not_listed(portal, db):
    mine = make_client(db)
    _drafted(db, mine, name="Still drafting")
    make_budget(db, resource_id=make_project(db, company_id=mine.id).id, status="pending_approval", name="Sent")
    assert [b["name"] for b in _get(portal, "/budgets", mine)["budgets"]] == ["Sent"]


def test_a_draft_budget_detail_answers_404(portal, db):
    mine = make_client(db)
    draft = _drafted(db, mine)
    assert portal.get(f"/budgets/{draft.id}", mine).status == 404


def test_approving_a_draft_budget_answers_404(portal, db):
    mine = make_client(db)
    draft = _drafted(db, mine)
    # was 409 "this one is draft": the client learnt the draft existed
    assert portal.post(f"/budgets/{draft.id}/approve", mine, role="admin").status == 404


def test_a_draft_budgets_history_is_not_shown(portal, db):
    mine = make_client(db)
    draft = _drafted(db, mine)
    assert draft.id not in {e["entity_id"] for e in _get(portal, "/history", mine)["history"]}


def test_a_draft_budgets_history_is_not_in_the_dashboard_activity(portal, db):
    mine = make_client(db)
    draft = _drafted(db, mine)
    assert draft.id not in {e["entity_id"] for e in _get(portal, "/dashboard", mine)["recentActivity"]}


def test_a_draft_budgets_notes_are_not_listed(portal, db):
    mine = make_client(db)
    draft = _drafted(db, mine)
    db.add(Note(resource_type="budget", resource_id=draft.id, content="Margin is thin here", visibility=["client"],
                mentions=[]))
    db.flush()
    assert _get(portal, "/notes", mine)["notes"] == []


def test_a_budget_set_back_to_draft_is_hidden_again(portal, db, api, exec_user):
    mine = make_client(db)
    budget = _drafted(db, mine)
    assert api.put(f"/api/budgets/{budget.id}", json={"status": "pending_approval"}, as_=exec_user).status == 200
    assert portal.get(f"/budgets/{budget.id}", mine).status == 200
    assert api.put(f"/api/budgets/{budget.id}", json={"status": "draft"}, as_=exec_user).status == 200
    assert portal.get(f"/budgets/{budget.id}", mine).status == 404


def test_a_budget_sent_for_approval_is_shown_with_its_lines_and_history(portal, db, api, exec_user):
    mine = make_client(db)
    budget = _drafted(db, mine)
    assert api.put(f"/api/budgets/{budget.id}", json={"status": "pending_approval"}, as_=exec_user).status == 200
    assert [b["id"] for b in _get(portal, "/budgets", mine)["budgets"]] == [budget.id]
    detail = _get(portal, f"/budgets/{budget.id}", mine)
    assert detail["budget"]["status"] == "pending_approval"
    assert [(i["description"], i["amount"]) for i in detail["lineItems"]] == [("Design", 300.0)]
    assert budget.id in {e["entity_id"] for e in _get(portal, "/history", mine)["history"]}
