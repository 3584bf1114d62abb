"""Portal: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). Already tested elsewhere: the dashboard (test_delivery.py), budgets and notes (test_budgets_notes.py),
invoices, history and contracts (test_invoices_contracts.py), results and campaigns (test_results_routes.py).
Session 23: the history (with entries of every kind) at its stated number of statements."""
import os
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from chalicelib.areas.invoices.models import InvoicePayment
from chalicelib.areas.onboarding.models import (MilestoneCompletion, OnboardingMilestone, OnboardingProgress,
                                                OnboardingStage, OnboardingTemplate)
from chalicelib.areas.pages.models import Page
from chalicelib.areas.portal.models import AdConnection, ClientGoal, PortalNotification, Qbr, QbrSection
from chalicelib.areas.projects.models import ProjectDecision, ProjectGoal
from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from chalicelib.core import history as core_history
from chalicelib.core.locks import insert_rows
from tests.areas.announcements.factories import make_announcement
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.areas.projects.factories import add_member, make_project
from tests.areas.tasks.factories import make_task, priority, status
from tests.factories import constant_statements, exact_statements, make_user

from .conftest import make_client

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


def test_projects(portal, db, count_queries):
    mine = make_client(db)
    manager = make_user(db)

    def grow(n):
        for _ in range(n):
            project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id, owner_id=make_user(db).id)
            make_task(db, resource_type="project", resource_id=project.id)

    body = constant_statements(count_queries, lambda: portal.get("/projects", mine), grow, lambda b: len(b["projects"]))
    assert all(p["task_counts"]["total"] == 1 for p in body["projects"])


def test_project_detail_goals_members_and_decisions(portal, db, count_queries):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)

    def grow(n):
        for _ in range(n):
            user = make_user(db, job_title="Dev")
            add_member(db, project, user)
            db.add_all([ProjectGoal(project_id=project.id, title="G", position=0, due_date=date(2030, 1, 1)),
                        ProjectDecision(project_id=project.id, title="D", decision="Yes", decided_by=user.id)])
        db.flush()

    def size(body):
        sizes = {len(body["goals"]), len(body["members"]), len(body["decisions"])}
        return sizes.pop() if len(sizes) == 1 else -1

    body = constant_statements(count_queries, lambda: portal.get(f"/projects/{project.id}", mine), grow, size)
    assert all(d["decided_by_name"] for d in body["decisions"])


def test_project_tasks(portal, db, count_queries):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    labels = {"status_id": status(db, "todo").id, "priority_id": priority(db, "high").id}

    def grow(n):
        for _ in range(n):
            make_task(db, resource_type="project", resource_id=project.id, assignee_id=make_user(db).id, **labels)

    body = constant_statements(count_queries, lambda: portal.get(f"/projects/{project.id}/tasks", mine), grow,
                               lambda b: len(b["tasks"]))
    assert all(t["assignee_name"] and t["status_label"] for t in body["tasks"])


def test_project_roadmap(portal, db, count_queries):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    roadmap = Roadmap(name="R", project_id=project.id)
    db.add(roadmap)
    db.flush()

    def grow(n):
        insert_rows(db, RoadmapItem, [{"roadmap_id": roadmap.id, "title": f"I{i}", "position": i} for i in range(n)])

    constant_statements(count_queries, lambda: portal.get(f"/projects/{project.id}/roadmap", mine), grow,
                        lambda b: len(b["items"]))


def test_project_decisions(portal, db, count_queries):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)

    def grow(n):
        insert_rows(db, ProjectDecision, [{"project_id": project.id, "title": "D", "decision": "Yes",
                                           "decided_by": make_user(db).id} for _ in range(n)])

    body = constant_statements(count_queries, lambda: portal.get(f"/projects/{project.id}/decisions", mine), grow,
                               lambda b: len(b["decisions"]))
    assert all(d["decided_by_name"] for d in body["decisions"])


def test_budget_detail_line_items(portal, db, count_queries):
    mine = make_client(db)
    budget = make_budget(db, resource_id=make_project(db, company_id=mine.id).id, status="sent")
    task = make_task(db)

    def grow(n):
        for i in range(n):
            make_line_item(db, budget, task_id=task.id, position=i)

    constant_statements(count_queries, lambda: portal.get(f"/budgets/{budget.id}", mine), grow,
                        lambda b: len(b["lineItems"]))


def test_invoice_detail_line_items_and_payments(portal, db, count_queries):
    mine = make_client(db)
    invoice = make_invoice(db, status="sent", company_id=mine.id, total=Decimal("110"), amount_due=Decimal("110"))

    def grow(n):
        for i in range(n):
            make_invoice_item(db, invoice, position=i)
        insert_rows(db, InvoicePayment, [{"invoice_id": invoice.id, "ledger_payment_id": f"p{n}-{i}", "amount": 1,
                                          "date": date(2026, 3, 2), "status": "AUTHORISED"} for i in range(n)])

    def size(body):
        return len(body["lineItems"]) if len(body["lineItems"]) == len(body["payments"]) else -1

    constant_statements(count_queries, lambda: portal.get(f"/invoices/{invoice.id}", mine), grow, size)


def test_pages(portal, db, count_queries):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)

    def grow(n):
        insert_rows(db, Page, [{"title": f"P{i}", "content": "c", "position": float(i), "is_published": True,
                                "published_at": NOW, "entity_type": ("company", "project")[i % 2],
                                "entity_id": (mine.id, project.id)[i % 2], "created_by": make_user(db).id}
                               for i in range(n)])

    constant_statements(count_queries, lambda: portal.get("/pages", mine), grow, lambda b: len(b["pages"]))


def test_team(portal, db, count_queries):
    mine = make_client(db)

    def grow(n):
        for _ in range(n):
            project = make_project(db, company_id=mine.id, owner_id=make_user(db).id,
                                   delivery_manager_id=make_user(db).id)
            add_member(db, project, make_user(db, job_title="Dev"))

    def size(body):
        return len(body["team"]) if len(body["team"]) * 2 == len(body["leads"]) else -1

    constant_statements(count_queries, lambda: portal.get("/team", mine), grow, size)


def test_announcements(portal, db, count_queries):
    """At most 20 announcements: measured at 5 and at that bound."""
    mine = make_client(db)
    for _ in range(5):
        make_announcement(db)
    with count_queries() as small:
        assert len(portal.get("/announcements", mine).json["announcements"]) == 5
    for _ in range(95):
        make_announcement(db)
    with count_queries() as large:
        assert len(portal.get("/announcements", mine).json["announcements"]) == 20
    assert small.count == large.count


def test_qbrs(portal, db, count_queries):
    mine = make_client(db)

    def grow(n):
        for i in range(n):
            qbr = Qbr(company_id=mine.id, title=f"Q{i}", quarter="2026-Q1", status="presented", presented_at=NOW)
            db.add(qbr)
            db.flush()
            insert_rows(db, QbrSection, [{"qbr_id": qbr.id, "section_key": f"s{k}", "title": "S", "content": "c",
                                          "position": k} for k in range(2)])

    body = constant_statements(count_queries, lambda: portal.get("/qbrs", mine), grow, lambda b: len(b["qbrs"]))
    assert all(len(q["sections"]) == 2 for q in body["qbrs"])


def test_questionnaire_goals(portal, db, count_queries):
    mine = make_client(db)

    def grow(n):
        insert_rows(db, ClientGoal, [{"company_id": mine.id, "metric": f"m{i}", "target": 10, "source": "staff"}
                                     for i in range(n)])

    constant_statements(count_queries, lambda: portal.get("/questionnaire", mine), grow,
                        lambda b: len(b["profile"]["goals"]))


def test_onboarding_stages_and_milestones(portal, db, count_queries):
    mine = make_client(db)
    template = OnboardingTemplate(name="T")
    db.add(template)
    db.flush()
    progress = OnboardingProgress(company_id=mine.id, template_id=template.id, started_at=NOW)
    db.add(progress)
    db.flush()
    made = []

    def grow(n):
        for _ in range(n):
            stage = OnboardingStage(template_id=template.id, name="S", stage_type="kickoff", sort_order=len(made))
            db.add(stage)
            db.flush()
            milestone = OnboardingMilestone(stage_id=stage.id, title="M")
            db.add(milestone)
            db.flush()
            db.add(MilestoneCompletion(progress_id=progress.id, milestone_id=milestone.id,
                                       completed_by=make_user(db).id))
            made.append(stage)
        db.flush()

    body = constant_statements(count_queries, lambda: portal.get("/onboarding", mine), grow, lambda b: len(b["stages"]))
    assert body["completed_milestones"] == 100


def test_notifications(portal, db, count_queries):
    """A page holds at most 100 notifications: measured at 5 and 100."""
    mine = make_client(db)

    def grow(n):
        insert_rows(db, PortalNotification, [{"company_id": mine.id, "portal_user_id": "pu-1", "type": "t",
                                              "title": f"N{i}"} for i in range(n)])

    constant_statements(count_queries, lambda: portal.get("/notifications?limit=100", mine), grow,
                        lambda b: len(b["notifications"]))


def test_connections(portal, db, count_queries):
    mine = make_client(db, dashboard=True)

    def grow(n):
        insert_rows(db, AdConnection, [{"company_id": mine.id, "platform": "google_ads", "display_name": "G",
                                        "account_id": f"a{i}-{n}", "secret": "s"} for i in range(n)])

    constant_statements(count_queries, lambda: portal.get("/connections", mine), grow, lambda b: len(b["connections"]))


def test_staff_qbrs_goals_and_connections(api, db, exec_user, count_queries):
    mine = make_client(db)

    def grow(n):
        for i in range(n):
            qbr = Qbr(company_id=mine.id, title=f"Q{i}", quarter="2026-Q1", created_by=make_user(db).id)
            db.add(qbr)
            db.flush()
            insert_rows(db, QbrSection, [{"qbr_id": qbr.id, "section_key": f"s{k}", "title": "S", "position": k}
                                         for k in range(2)])
        insert_rows(db, ClientGoal, [{"company_id": mine.id, "metric": f"m{i}", "source": "staff"} for i in range(n)])
        insert_rows(db, AdConnection, [{"company_id": mine.id, "platform": "meta_ads", "display_name": "M",
                                        "account_id": f"a{i}-{n}", "secret": "s"} for i in range(n)])

    counts = {}
    grown = 0
    for total in (5, 100):
        grow(total - grown)
        grown = total
        for key in ("qbrs", "goals", "connections"):
            with count_queries() as counter:
                answer = api.get(f"/api/clients/{mine.id}/{key}", as_=exec_user)
            assert answer.status == 200, answer
            assert len(answer.json[key]) == total
            counts.setdefault(key, []).append(counter.count)
    assert all(c[0] == c[1] for c in counts.values()), counts


def test_staff_qbr_detail_sections(api, db, exec_user, count_queries):
    mine = make_client(db)
    qbr = Qbr(company_id=mine.id, title="Q", quarter="2026-Q1")
    db.add(qbr)
    db.flush()
    made = []

    def grow(n):
        insert_rows(db, QbrSection, [{"qbr_id": qbr.id, "section_key": f"s{len(made) + k}", "title": "S",
                                      "position": len(made) + k} for k in range(n)])
        made.extend(range(n))

    constant_statements(count_queries, lambda: api.get(f"/api/clients/{mine.id}/qbrs/{qbr.id}", as_=exec_user), grow,
                        lambda b: len(b["qbr"]["sections"]))



# the company's portal settings, the portal user's row (written on each call), the entries (the projects, budgets
# and invoices they may be of read inside that statement)
HISTORY_STATEMENTS = 3


@pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                    reason="the count is Postgres': the portal user's write is one CTE there, two statements on SQLite")
def test_history(portal, db, count_queries):
    """Session 23: GET /api/portal/history at 5 and 45 entries (it answers at most 50), entries of the company's
    projects, budgets and invoices in turn, each by another staff member, and another company's left out."""
    mine, other = make_client(db), make_client(db)
    made = []

    def target(company, index):
        kind = ("project", "budget", "invoice")[index % 3]
        if kind == "invoice":
            return kind, make_invoice(db, status="sent", company_id=company.id).id
        project = make_project(db, company_id=company.id)
        return kind, (project.id if kind == "project" else make_budget(db, resource_id=project.id, status="sent").id)

    def grow(n):
        for _ in range(n):
            index = len(made)
            for company in (mine, other):
                kind, entity_id = target(company, index)
                core_history.record(db, entity_type=kind, entity_id=entity_id, action="updated",
                                    actor_id=make_user(db, name=f"Staff {index}").id)
                if company is mine:
                    made.append((kind, entity_id, f"Staff {index}"))
        db.flush()

    body = exact_statements(count_queries, lambda: portal.get("/history", mine), grow, lambda b: len(b["history"]),
                            (5, 45), HISTORY_STATEMENTS)
    assert sorted((h["entity_type"], h["entity_id"], h["actor_name"]) for h in body["history"]) == sorted(made)
