"""Session 27 (left from session 25): a project moved from client A to client B showed B's portal users, in GET
/history and the dashboard's recentActivity, the entries from when it was A's (actions, staff names, times). A
client now sees a record's entries only since it became theirs: those from the record's last change of company
(recorded in the record's own history: a project's or an invoice's `company_id`, a budget's `resource_id`), and a
budget of a project only since the project became theirs too (docs/decisions/portal.md, session 27)."""
from chalicelib.core import history as core_history
from tests.areas.budgets.factories import make_budget
from tests.areas.invoices.factories import make_invoice
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _entries(portal, company) -> list[tuple[str, str]]:
    answer = portal.get("/history", company)
    assert answer.status == 200, answer
    return [(e["entity_id"], e["action"]) for e in answer.json["history"]]


def _activity(portal, company) -> list[tuple[str, str]]:
    answer = portal.get("/dashboard", company)
    assert answer.status == 200, answer
    return [(e["entity_id"], e["action"]) for e in answer.json["recentActivity"]]


def _record(db, kind, record, action, actor) -> None:
    core_history.record(db, entity_type=kind, entity_id=record.id, action=action, actor_id=actor.id)
    db.flush()


def _moved(api, path, as_, **changes) -> None:
    answer = api.put(path, as_=as_, json=changes)
    assert answer.status == 200, answer


def test_a_moved_project_shows_the_new_client_only_its_entries_since_the_move(portal, api, db, exec_user):
    first, second = make_client(db), make_client(db)
    staff = make_user(db, name="Anna of A's time")
    project = make_project(db, company_id=first.id)
    budget = make_budget(db, resource_id=project.id, status="pending_approval")  # it moves with the project
    _record(db, "project", project, "a_kickoff", staff)
    _record(db, "budget", budget, "a_line_item", staff)
    assert sorted(_entries(portal, first)) == sorted([(project.id, "a_kickoff"), (budget.id, "a_line_item")])
    _moved(api, f"/api/projects/{project.id}", exec_user, company_id=second.id)
    _record(db, "project", project, "b_kickoff", staff)
    _record(db, "budget", budget, "b_line_item", staff)
    since = [(budget.id, "b_line_item"), (project.id, "b_kickoff"), (project.id, "updated")]
    # was: A's kickoff and A's budget line (and who did them, when) listed to B too
    assert _entries(portal, second) == since
    assert _activity(portal, second) == since
    assert _entries(portal, first) == [] and _activity(portal, first) == []
    # moved back: A sees what it saw no more than B's time, only what follows the move back
    _moved(api, f"/api/projects/{project.id}", exec_user, company_id=first.id)
    assert _entries(portal, first) == [(project.id, "updated")]
    assert _entries(portal, second) == []


def test_a_project_given_its_client_shows_it_only_what_followed(portal, api, db, exec_user):
    """A project with no company (internal work) then given client B: B sees it from the day it became B's."""
    client = make_client(db)
    staff = make_user(db)
    project = make_project(db, company_id=None)
    _record(db, "project", project, "internal_review", staff)
    _moved(api, f"/api/projects/{project.id}", exec_user, company_id=client.id)
    assert _entries(portal, client) == [(project.id, "updated")]


def test_a_moved_invoice_shows_the_new_client_only_its_entries_since_the_move(portal, api, db, exec_user):
    first, second = make_client(db), make_client(db)
    staff = make_user(db)
    invoice = make_invoice(db, company_id=first.id, status="sent")
    _record(db, "invoice", invoice, "a_reminder_sent", staff)
    assert _entries(portal, first) == [(invoice.id, "a_reminder_sent")]
    _moved(api, f"/api/invoices/{invoice.id}", exec_user, company_id=second.id)
    _record(db, "invoice", invoice, "b_reminder_sent", staff)
    # was: A's reminder listed to B too
    assert _entries(portal, second) == [(invoice.id, "b_reminder_sent"), (invoice.id, "updated")]
    assert _entries(portal, first) == []


def test_a_budget_moved_to_another_clients_project_shows_it_only_its_entries_since_the_move(portal, api, db,
                                                                                           exec_user):
    first, second = make_client(db), make_client(db)
    staff = make_user(db)
    budget = make_budget(db, resource_id=make_project(db, company_id=first.id).id, status="pending_approval")
    _record(db, "budget", budget, "a_line_item", staff)
    assert _entries(portal, first) == [(budget.id, "a_line_item")]
    _moved(api, f"/api/budgets/{budget.id}", exec_user, resource_id=make_project(db, company_id=second.id).id)
    _record(db, "budget", budget, "b_line_item", staff)
    # was: A's line listed to B too
    assert _entries(portal, second) == [(budget.id, "b_line_item"), (budget.id, "updated")]
    assert _entries(portal, first) == []


def test_a_record_that_never_moved_keeps_its_whole_history(portal, api, db, exec_user):
    client = make_client(db)
    staff = make_user(db)
    project = make_project(db, company_id=client.id)
    budget = make_budget(db, resource_id=project.id, status="active")
    invoice = make_invoice(db, company_id=client.id, status="sent")
    for kind, record in (("project", project), ("budget", budget), ("invoice", invoice)):
        _record(db, kind, record, "first", staff)
    _moved(api, f"/api/projects/{project.id}", exec_user, name="Renamed")  # a change that is no move
    _record(db, "project", project, "last", staff)
    # another project of another client moved to this one afterwards moves none of these
    arrived = make_project(db, company_id=make_client(db).id)
    _moved(api, f"/api/projects/{arrived.id}", exec_user, company_id=client.id)
    assert sorted(_entries(portal, client)) == sorted([
        (project.id, "first"), (budget.id, "first"), (invoice.id, "first"), (project.id, "updated"),
        (project.id, "last"), (arrived.id, "updated")])


def test_a_budget_of_a_deal_moved_to_another_client_shows_it_only_its_entries_since_the_move(portal, api, db,
                                                                                             exec_user):
    """A deal has no history of its own: its move to another client marks each of its budgets' history
    (`budget_company_changed`, the budgets area's hook of the move), which the portal reads as a move."""
    from tests.areas.deals.factories import make_deal

    first, second = make_client(db), make_client(db)
    staff = make_user(db)
    deal = make_deal(db, company_id=first.id)
    budget = make_budget(db, resource_type="deal", resource_id=deal.id, status="pending_approval")
    _record(db, "budget", budget, "a_line_item", staff)
    assert _entries(portal, first) == [(budget.id, "a_line_item")]
    _moved(api, f"/api/deals/deals/{deal.id}", exec_user, company_id=second.id)
    _record(db, "budget", budget, "b_line_item", staff)
    # was: A's line listed to B too
    assert [action for _, action in _entries(portal, second)] == ["b_line_item", "company_changed"]
    assert _entries(portal, first) == []
