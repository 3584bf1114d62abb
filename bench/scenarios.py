"""The endpoints the benchmarks measure, and the data behind them at a given row count.

Each endpoint names its area's route; an endpoint whose route is not in the app is skipped with a
line saying so. `Dataset.scale(n)` tops the data up to n rows of what each endpoint reads:
list endpoints read n records; a detail read reads one record with n children; writes run
against a table of n records. Data is made with the areas' own test factories.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import date
from typing import Callable

_counter = itertools.count(1)


@dataclass
class Endpoint:
    name: str
    area: str
    method: str
    resource: str
    kind: str  # "detail", "list" or "write"
    rows: str  # what the row count scales for this endpoint
    params: Callable[["Dataset"], dict] = lambda ds: {}
    query: dict | None = None
    body: Callable[["Dataset", int], dict] | None = None
    commit_replay: bool = True  # replaying a create would collide with its own ids: roll back instead
    target_ratio: float | None = None  # request / replay of its own SQL (hides the planning cost)
    per_record: bool = False  # a detail read or an update: latency on a record with few children
    floor_target: float | None = None  # request / primary-key floor, on pg8000 (issue 11 item 6)
    queue: bool = False  # run with the notifications queue configured (SQS, moto), not in-process delivery
    # the caller's headers instead of the executive's bearer token (the portal: its service token and headers)
    headers: Callable[["Dataset"], dict] | None = None
    # the page the read cuts its rows to, when its query's `limit` does not say it: a short page skips the count
    page_size: int | None = None


def _task_body(ds, i):
    return {"title": f"Bench task {i}", "assignee_id": ds.ids["user"], "status_id": ds.ids.get("task_status")}


ENDPOINTS = [
    Endpoint("me", "admin", "GET", "/api/me", "detail", "nothing (the caller)", floor_target=5.0, per_record=True),
    # session 23: 12.3x and 15.2x the floor in two quick runs (25 and 50 calls): its ratio only, no target yet
    Endpoint("admin user list", "admin", "GET", "/api/admin/users", "list",
             "active users (at least n: other areas' users too)", query={"limit": "100"}),
    Endpoint("admin user detail", "admin", "GET", "/api/admin/users/{user_id}", "detail",
             "nothing that grows (a user with a squad, a manager and three per-tool overrides)",
             params=lambda ds: {"user_id": ds.ids["admin_user"]}, per_record=True, floor_target=10.0),
    Endpoint("task list", "tasks", "GET", "/api/tasks", "list", "tasks", query={"limit": "100"}, target_ratio=3.0,
             floor_target=15.0),
    Endpoint("task detail", "tasks", "GET", "/api/tasks/{task_id}", "detail", "todos and resources of the task",
             params=lambda ds: {"task_id": ds.ids["task"]}, target_ratio=2.0, per_record=True, floor_target=10.0),
    Endpoint("task create", "tasks", "POST", "/api/tasks", "write", "tasks in the table", body=_task_body,
             commit_replay=False, queue=True, floor_target=20.0),
    Endpoint("task create (in-process delivery)", "tasks", "POST", "/api/tasks", "write",
             "tasks in the table (development mode: notifications delivered in the request)", body=_task_body,
             commit_replay=False),
    Endpoint("task update", "tasks", "PUT", "/api/tasks/{task_id}", "write", "todos of the task",
             params=lambda ds: {"task_id": ds.ids["task"]},
             body=lambda ds, i: {"title": f"Bench task renamed {i}", "description": f"revision {i}"},
             per_record=True),
    Endpoint("project list", "projects", "GET", "/api/projects", "list", "projects", query={"limit": "100"},
             target_ratio=3.0, floor_target=15.0),
    Endpoint("project detail", "projects", "GET", "/api/projects/{project_id}", "detail",
             "members and goals of the project", params=lambda ds: {"project_id": ds.ids["project"]},
             target_ratio=2.0, per_record=True, floor_target=10.0),
    Endpoint("budget list", "budgets", "GET", "/api/budgets", "list", "budgets", query={"limit": "100"},
             target_ratio=3.0, floor_target=15.0),
    Endpoint("budget detail", "budgets", "GET", "/api/budgets/{budget_id}", "detail",
             "line items and time entries of the budget", params=lambda ds: {"budget_id": ds.ids["budget"]},
             per_record=True, page_size=500),  # its time entries are the first page (500) of the budget's
    Endpoint("config lists", "config_lists", "GET", "/api/config-lists", "list", "items of one list",
             floor_target=15.0),
    Endpoint("config list items", "config_lists", "GET", "/api/config-lists/{key}/items", "list",
             "items of the list", params=lambda ds: {"key": ds.ids["config_key"]}, floor_target=15.0),
    Endpoint("notifications list", "notifications", "GET", "/api/notifications", "list",
             "notifications of the caller (the page is at most 100)", query={"limit": "100"}, floor_target=15.0),
    Endpoint("action item list", "action_items", "GET", "/api/action-items", "list",
             "action items assigned to the caller (the page is at most 100)", query={"limit": "100"},
             floor_target=15.0),
    Endpoint("action centre", "action_items", "GET", "/api/action-items/centre", "list",
             "action items assigned to the caller (the centre's first page)",
             page_size=50),  # chalicelib/areas/action_items/schemas.py PAGE_SIZE: the centre's first page
    # Every other area: its main list (100 rows) and its detail (one record with n children where it has any).
    # floor_target (lists 15x, details 10x) only on an area's main list or detail measured to meet it in two quick
    # runs (25 and 50 calls, 2-core machine with other work running); the others report their ratio only.
    Endpoint("company list", "deals", "GET", "/api/deals/companies", "list",
             "companies (the page is 50: the route's fixed page size)", floor_target=15.0),
    Endpoint("company detail", "deals", "GET", "/api/deals/companies/{company_id}", "detail",
             "contacts and deals of the company", params=lambda ds: {"company_id": ds.ids["company"]}, per_record=True),
    Endpoint("contact list", "deals", "GET", "/api/deals/contacts", "list",
             "contacts (the page is 50: the route's fixed page size)", floor_target=15.0),
    Endpoint("contact detail", "deals", "GET", "/api/deals/contacts/{contact_id}", "detail",
             "deals of the contact (at most 500: the cap a contact's deals keep on write)",
             params=lambda ds: {"contact_id": ds.ids["contact"]}, per_record=True, floor_target=10.0),
    Endpoint("deal list", "deals", "GET", "/api/deals/deals", "list", "deals", query={"limit": "100"},
             floor_target=15.0),
    Endpoint("deal detail", "deals", "GET", "/api/deals/deals/{deal_id}", "detail", "nothing (a deal has no children)",
             params=lambda ds: {"deal_id": ds.ids["deal"]}, per_record=True, floor_target=10.0),
    Endpoint("client profile list", "clients", "GET", "/api/clients", "list", "client profiles",
             query={"limit": "100"}),
    Endpoint("client profile detail", "clients", "GET", "/api/clients/{company_id}/profile", "detail",
             "nothing (a profile has no children)", params=lambda ds: {"company_id": ds.ids["client_company"]},
             per_record=True, floor_target=10.0),
    Endpoint("contract list", "clients", "GET", "/api/contracts", "list", "contracts", query={"limit": "100"}),
    Endpoint("contract detail", "clients", "GET", "/api/contracts/{contract_id}", "detail",
             "nothing (a contract has no children)", params=lambda ds: {"contract_id": ds.ids["contract"]},
             per_record=True, floor_target=10.0),
    Endpoint("invoice list", "invoices", "GET", "/api/invoices", "list", "invoices", query={"limit": "100"},
             floor_target=15.0),
    Endpoint("invoice detail", "invoices", "GET", "/api/invoices/{invoice_id}", "detail",
             "line items and payments of the invoice", params=lambda ds: {"invoice_id": ds.ids["invoice"]},
             per_record=True),
    Endpoint("announcement list", "announcements", "GET", "/api/announcements", "list", "announcements",
             query={"limit": "100"}),
    Endpoint("announcement detail", "announcements", "GET", "/api/announcements/{announcement_id}", "detail",
             "read receipts of the announcement", params=lambda ds: {"announcement_id": ds.ids["announcement"]},
             per_record=True),
    Endpoint("leave request list", "leave", "GET", "/api/leave/requests", "list", "leave requests (tab all)",
             query={"tab": "all"}),
    Endpoint("leave request detail", "leave", "GET", "/api/leave/requests/{leave_request_id}", "detail",
             "history entries of the request", params=lambda ds: {"leave_request_id": ds.ids["leave_request"]},
             per_record=True),
    Endpoint("sprint list", "sprints", "GET", "/api/sprints", "list", "sprints", query={"limit": "100"},
             floor_target=15.0),
    Endpoint("sprint detail", "sprints", "GET", "/api/sprints/{sprint_id}", "detail",
             "nothing (a sprint has no children)", params=lambda ds: {"sprint_id": ds.ids["sprint"]}, per_record=True,
             floor_target=10.0),
    Endpoint("roadmap list", "roadmaps", "GET", "/api/roadmaps", "list", "roadmaps", query={"limit": "100"},
             floor_target=15.0),
    Endpoint("roadmap detail", "roadmaps", "GET", "/api/roadmaps/{roadmap_id}", "detail",
             "items of the roadmap", params=lambda ds: {"roadmap_id": ds.ids["roadmap"]}, per_record=True),
    Endpoint("sla policy list", "sla", "GET", "/api/sla/policies", "list", "SLA policies (one rule each)",
             query={"limit": "100"}),
    Endpoint("sla task detail", "sla", "GET", "/api/sla/tasks/{task_id}", "detail",
             "nothing (one task's SLA with its policy's name and rule)",
             params=lambda ds: {"task_id": ds.ids["sla_task"]}, per_record=True, floor_target=10.0),
    Endpoint("time entry list", "timesheets", "GET", "/api/time-entries", "list", "time entries",
             query={"limit": "100"}, floor_target=15.0),
    Endpoint("time entry detail", "timesheets", "GET", "/api/time-entries/{entry_id}", "detail",
             "nothing (a time entry has no children)", params=lambda ds: {"entry_id": ds.ids["time_entry"]},
             per_record=True, floor_target=10.0),
    Endpoint("page list", "pages", "GET", "/api/pages", "list", "standalone pages", query={"limit": "100"},
             floor_target=15.0),
    Endpoint("page detail", "pages", "GET", "/api/pages/{page_id}", "detail", "nothing (the page and its content)",
             params=lambda ds: {"page_id": ds.ids["page"]}, per_record=True, floor_target=10.0),
    Endpoint("agent task list", "agents", "GET", "/api/agent-tasks", "list", "agent tasks (one project)",
             query={"limit": "100"}),
    Endpoint("agent task detail", "agents", "GET", "/api/agent-tasks/{agent_task_id}", "detail",
             "runs of the agent task (the detail shows the 50 most recent, and counts them when there are more)",
             params=lambda ds: {"agent_task_id": ds.ids["agent_task"]}, per_record=True,
             page_size=50),  # chalicelib/areas/agents/queries.py RECENT_RUNS
    Endpoint("culture event list", "calendar", "GET", "/api/calendar/culture-events", "list", "culture events",
             floor_target=15.0),
    Endpoint("public holiday list", "calendar", "GET", "/api/calendar/public-holidays", "list", "public holidays",
             floor_target=15.0),
    Endpoint("connection list", "connections", "GET", "/api/admin/connections", "list",
             "stored connections: at most one per provider (ledger, planner, chat), all three stored",
             floor_target=15.0),
    Endpoint("user mapping list", "connections", "GET", "/api/admin/connections/user-mappings", "list",
             "active users with their ledger and planner ids"),
    Endpoint("insights overview", "insights", "GET", "/api/insights/overview", "list",
             "employees (headcount, retention, diversity, compensation, structure, location)"),
    Endpoint("meeting list", "meetings", "GET", "/api/meetings", "list",
             "meetings (the page is at most 50: the route's cap)", query={"per_page": "50"}),
    Endpoint("meeting detail", "meetings", "GET", "/api/meetings/{meeting_id}", "detail",
             "attendees and action items of the meeting", params=lambda ds: {"meeting_id": ds.ids["meeting"]},
             per_record=True),
    # a 100-row page as the other lists (paged since session 22: at the default 500, 1,000 notes filled the page and
    # ran its count statement, 100 did not, and the statements looked to grow)
    Endpoint("note list", "notes", "GET", "/api/notes/{resource_type}/{record_id}", "list", "notes of one deal",
             params=lambda ds: {"resource_type": "deal", "record_id": ds.ids["note_deal"]}, query={"limit": "100"}),
    Endpoint("onboarding template list", "onboarding", "GET", "/api/admin/onboarding-templates/client", "list",
             "onboarding templates (one stage and milestone each)"),
    Endpoint("onboarding template detail", "onboarding", "GET", "/api/admin/onboarding-templates/client/{template_id}",
             "detail", "stages of the template (one milestone each)",
             params=lambda ds: {"template_id": ds.ids["onboarding_template"]}, per_record=True),
    Endpoint("review list", "performance", "GET", "/api/performance/reviews", "list", "reviews (one cycle)"),
    Endpoint("review detail", "performance", "GET", "/api/performance/reviews/{review_id}", "detail",
             "KPI ratings and goals of the review", params=lambda ds: {"review_id": ds.ids["review"]},
             per_record=True),
    Endpoint("proposal list", "proposals", "GET", "/api/proposals", "list", "proposals", query={"limit": "100"}),
    Endpoint("proposal detail", "proposals", "GET", "/api/proposals/{proposal_id}", "detail",
             "approvals of the proposal", params=lambda ds: {"proposal_id": ds.ids["proposal"]}, per_record=True),
    Endpoint("relationship action list", "relationships", "GET", "/api/relationships/relationship-actions", "list",
             "relationship actions"),
    Endpoint("relationship profile", "relationships", "GET", "/api/relationships/contacts/{contact_id}/relationship",
             "detail", "nothing (a contact's profile, made on the first read)",
             params=lambda ds: {"contact_id": ds.ids["relationship_contact"]}, per_record=True, floor_target=10.0),
    Endpoint("research brief list", "research", "GET", "/api/research/companies/{company_id}/briefs", "list",
             "briefs of one company", params=lambda ds: {"company_id": ds.ids["research_company"]}),
    Endpoint("research brief detail", "research", "GET", "/api/research/{brief_id}", "detail",
             "nothing (a brief and its content)", params=lambda ds: {"brief_id": ds.ids["research_brief"]},
             per_record=True, floor_target=10.0),
    Endpoint("portal dashboard", "portal", "GET", "/api/portal/dashboard", "list",
             "projects of the portal's company (the dashboard's summary)", headers=lambda ds: ds.portal_headers()),
    Endpoint("portal project list", "portal", "GET", "/api/portal/projects", "list",
             "projects of the portal's company", headers=lambda ds: ds.portal_headers()),
    Endpoint("portal project detail", "portal", "GET", "/api/portal/projects/{project_id}", "detail",
             "goals and members of the project", params=lambda ds: {"project_id": ds.ids["portal_project"]},
             headers=lambda ds: ds.portal_headers(), per_record=True),
]

# The area whose data an endpoint reads -> the Dataset method that makes it (areas not listed need none).
_SCALERS = {"admin": "_scale_admin", "tasks": "_scale_tasks", "projects": "_scale_projects",
            "budgets": "_scale_budgets", "config_lists": "_scale_config", "notifications": "_scale_notifications",
            "action_items": "_scale_action_items", "deals": "_scale_deals", "clients": "_scale_clients",
            "invoices": "_scale_invoices", "announcements": "_scale_announcements", "leave": "_scale_leave",
            "sprints": "_scale_sprints", "roadmaps": "_scale_roadmaps", "sla": "_scale_sla",
            "timesheets": "_scale_timesheets", "pages": "_scale_pages", "agents": "_scale_agents",
            "calendar": "_scale_calendar", "connections": "_scale_connections", "insights": "_scale_insights",
            "meetings": "_scale_meetings", "notes": "_scale_notes", "onboarding": "_scale_onboarding",
            "performance": "_scale_performance", "proposals": "_scale_proposals",
            "relationships": "_scale_relationships", "research": "_scale_research", "portal": "_scale_portal"}

PORTAL_TOKEN = "bench-portal-service-token-0123456789"  # the benched service's PORTAL_SERVICE_TOKEN


def select(only: str | None) -> list[Endpoint]:
    """The endpoints whose name or area contains one of the comma-separated substrings of `only` (all without)."""
    if not only:
        return list(ENDPOINTS)
    wanted = [w.strip().lower() for w in only.split(",") if w.strip()]
    return [e for e in ENDPOINTS if any(w in e.name.lower() or w in e.area.lower() for w in wanted)]


def settle() -> None:
    """VACUUM ANALYZE the whole database, as autovacuum leaves tables in production: the planner has
    statistics for the rows just added (without them it may pick a nested loop over 100 ids that it expects
    to be one row, and a run's figure depends on whether autovacuum happened to pass before it) and the
    visibility map is set. VACUUM runs outside a transaction."""
    from sqlalchemy import text

    from chalicelib.core.db import get_engine

    with get_engine().connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))


@dataclass
class Dataset:
    """Records the endpoints read; `scale(n)` adds rows until each kind has n."""

    app: object
    executive_id: str
    ids: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    endpoints: list | None = None  # the endpoints measured (None: all)

    def has_route(self, endpoint: Endpoint) -> bool:
        return endpoint.method in self.app.routes.get(endpoint.resource, {})

    def _top_up(self, kind: str, n: int, make: Callable[[object, int], None], db) -> None:
        have = self.counts.get(kind, 0)
        for i in range(have, n):
            make(db, i)
        self.counts[kind] = max(have, n)

    def scale(self, n: int) -> None:
        from chalicelib.core.db import unit_of_work
        from tests.factories import make_user

        with unit_of_work() as uow:
            db = uow.session
            if "user" not in self.ids:
                self.ids["user"] = make_user(db, access_level="employee", name="Bench Assignee").id
            areas = []
            for e in (ENDPOINTS if self.endpoints is None else self.endpoints):
                if e.area in _SCALERS and e.area not in areas and self.has_route(e):
                    areas.append(e.area)
            for area in areas:
                getattr(self, _SCALERS[area])(db, n)
        settle()

    def portal_headers(self) -> dict:
        """The portal's call: its service token and the portal user's headers (tests/areas/portal/conftest.py)."""
        return {"Authorization": f"Bearer {PORTAL_TOKEN}", "X-Portal-Company-Id": self.ids["portal_company"],
                "X-Portal-User-Role": "viewer", "X-Portal-User-Id": "bench-portal-user"}

    def _users(self, db, n: int) -> list[str]:
        """n bench users (employees), shared by the areas whose records need one user each."""
        from tests.factories import make_user

        users = self.ids.setdefault("users", [])
        while len(users) < n:
            i = len(users)
            users.append(make_user(db, name=f"Bench Person {i}", email=f"bench.person{i}@agency.test").id)
        return users[:n]

    def _scale_admin(self, db, n: int) -> None:
        from chalicelib.core.models import UserPermission
        from tests.factories import make_squad, make_user

        if "admin_user" not in self.ids:
            squad = make_squad(db, name="Bench squad", manager_id=self.executive_id)
            user = make_user(db, name="Bench Admin Detail", email="bench.admin.detail@agency.test",
                             squad_id=squad.id, manager_id=self.executive_id, job_title="Engineer")
            db.add_all([UserPermission(user_id=user.id, tool=tool, level=level)
                        for tool, level in (("tasks", "manage"), ("deals", "view"), ("sla", "none"))])
            self.ids["admin_user"] = user.id
        self._users(db, n)

    def _scale_tasks(self, db, n: int) -> None:
        from tests.areas.tasks.factories import make_task, make_todo, priority, status

        todo_status = status(db, "todo") or status(db, "to_do")
        high = priority(db, "high")
        if todo_status is not None:
            self.ids["task_status"] = todo_status.id
        extras = {"assignee_id": self.ids["user"], "reporter_id": self.executive_id, "created_by": self.executive_id}
        if todo_status is not None:
            extras["status_id"] = todo_status.id
        if high is not None:
            extras["priority_id"] = high.id

        if "task" not in self.ids:
            self.ids["task"] = make_task(db, title="Bench detail task", description="detail", **extras).id
        from chalicelib.areas.tasks.models import Task, TaskResource

        task = db.get(Task, self.ids["task"])
        self._top_up("tasks", n, lambda db, i: make_task(db, title=f"Bench task {i}", due_date=date(2026, 12, 1),
                                                          **extras), db)

        def child(db, i):
            make_todo(db, task, title=f"Bench todo {i}", position=i, assignee_id=self.ids["user"])
            db.add(TaskResource(task_id=task.id, type="link", url=f"https://example.com/{i}", title=f"Link {i}",
                                icon="link"))

        self._top_up("task children", n, child, db)

    def _scale_projects(self, db, n: int) -> None:
        from chalicelib.areas.projects.models import ProjectGoal
        from tests.areas.projects.factories import add_member, make_project
        from tests.factories import make_user

        if "project" not in self.ids:
            self.ids["project"] = make_project(db, name="Bench detail project", owner_id=self.executive_id,
                                               delivery_manager_id=self.ids["user"]).id
        from chalicelib.areas.projects.models import Project

        project = db.get(Project, self.ids["project"])
        self._top_up("projects", n, lambda db, i: make_project(db, name=f"Bench project {i}",
                                                                owner_id=self.executive_id,
                                                                delivery_manager_id=self.ids["user"]), db)

        def child(db, i):
            add_member(db, project, make_user(db, name=f"Bench member {next(_counter)}"))
            db.add(ProjectGoal(project_id=project.id, title=f"Goal {i}", position=i))

        self._top_up("project children", n, child, db)

    def _scale_budgets(self, db, n: int) -> None:
        from chalicelib.areas.budgets.models import Budget
        from tests.areas.budgets.factories import make_budget, make_line_item
        from tests.areas.timesheets.factories import make_entry

        if "budget" not in self.ids:
            self.ids["budget"] = make_budget(db, name="Bench detail budget", owner_id=self.executive_id).id
        budget = db.get(Budget, self.ids["budget"])
        self._top_up("budgets", n, lambda db, i: make_line_item(
            db, make_budget(db, name=f"Bench budget {i}", owner_id=self.executive_id)), db)
        from chalicelib.core.models import User

        worker = db.get(User, self.ids["user"])

        def child(db, i):
            item = make_line_item(db, budget, description=f"Bench line {i}", position=i)
            make_entry(db, worker, budget_id=budget.id, line_item_id=item.id, status="approved")

        self._top_up("budget children", n, child, db)

    def _scale_config(self, db, n: int) -> None:
        from chalicelib.core.models import ConfigList
        from tests.areas.config_lists.factories import make_item, make_list

        if "config_key" not in self.ids:
            config_list = make_list(db, key="bench_list", name="Bench list")
            self.ids["config_key"] = config_list.key
            self.ids["config_list"] = config_list.id
        config_list = db.get(ConfigList, self.ids["config_list"])
        self._top_up("config items", n, lambda db, i: make_item(db, config_list, label=f"Bench {i}",
                                                                 value=f"bench_{i}", position=i), db)

    def _scale_notifications(self, db, n: int) -> None:
        from chalicelib.core.notify import Notification

        self._top_up("notifications", n, lambda db, i: db.add(Notification(
            user_id=self.executive_id, type="task_assigned", title=f"Bench notification {i}",
            resource_type="task", resource_id=self.ids.get("task"), is_read=bool(i % 2))), db)

    def _scale_action_items(self, db, n: int) -> None:
        from chalicelib.areas.action_items.models import ActionItem

        self._top_up("action_items", n, lambda db, i: db.add(ActionItem(
            title=f"Bench action {i}", source_module="manual", assigned_to=self.executive_id, is_completed=False,
            urgency="normal")), db)

    def _scale_deals(self, db, n: int) -> None:
        from chalicelib.areas.deals.models import Company
        from tests.areas.deals.factories import make_company, make_contact, make_deal

        if "company" not in self.ids:
            self.ids["company"] = make_company(db, name="Bench detail company", owner_id=self.executive_id).id
            self.ids["deal"] = make_deal(db, title="Bench detail deal", company_id=self.ids["company"],
                                         owner_id=self.executive_id, value=1000).id
        company = db.get(Company, self.ids["company"])

        def record(db, i):
            other = make_company(db, name=f"Bench company {i}", owner_id=self.executive_id)
            make_deal(db, title=f"Bench deal {i}", company_id=other.id, owner_id=self.executive_id, value=100 + i)

        self._top_up("deals", n, record, db)

        def child(db, i):
            contact = make_contact(db, first_name=f"Bench{i}", last_name="Contact", company_id=company.id,
                                   email=f"bench.contact{i}@client.test")
            make_deal(db, title=f"Bench company deal {i}", company_id=company.id, contact_id=contact.id,
                      owner_id=self.executive_id)

        self._top_up("company children", n, child, db)

        if "contact" not in self.ids:  # a contact of no company: its deals are not the detail company's
            self.ids["contact"] = make_contact(db, first_name="Bench", last_name="Detail contact",
                                               email="bench.detail.contact@client.test").id
        from chalicelib.areas.deals.queries import DETAIL_LIMIT

        self._top_up("contact children", min(n, DETAIL_LIMIT), lambda db, i: make_deal(
            db, title=f"Bench contact deal {i}", contact_id=self.ids["contact"], owner_id=self.executive_id,
            value=10 + i), db)

    def _scale_clients(self, db, n: int) -> None:
        from chalicelib.areas.clients.models import ClientProfile, Contract
        from tests.areas.deals.factories import make_company

        def record(db, i):
            company = make_company(db, name=f"Bench client {i}", status="client")
            db.add(ClientProfile(company_id=company.id, delivery_manager_id=self.ids["user"], portal_visibility={},
                                 client_group="Bench group" if i % 2 else None))
            contract = Contract(title=f"Bench contract {i}", company_id=company.id, status="draft",
                                signers=[{"name": "Sam Signer", "email": f"signer{i}@client.test"}],
                                created_by=self.executive_id)
            db.add(contract)
            self.ids.setdefault("client_company", company.id)
            if "contract" not in self.ids:
                db.flush()
                self.ids["contract"] = contract.id

        self._top_up("clients", n, record, db)

    def _scale_invoices(self, db, n: int) -> None:
        from decimal import Decimal

        from chalicelib.areas.invoices.models import Invoice, InvoicePayment
        from tests.areas.deals.factories import make_company
        from tests.areas.invoices.factories import make_invoice, make_invoice_item

        if "invoice" not in self.ids:
            self.ids["invoice_company"] = make_company(db, name="Bench invoiced company", status="client").id
            self.ids["invoice"] = make_invoice(db, company_id=self.ids["invoice_company"], status="sent").id
        invoice = db.get(Invoice, self.ids["invoice"])
        self._top_up("invoices", n, lambda db, i: make_invoice_item(
            db, make_invoice(db, company_id=self.ids["invoice_company"]), description=f"Bench line {i}"), db)

        def child(db, i):
            make_invoice_item(db, invoice, description=f"Bench detail line {i}", position=i)
            db.add(InvoicePayment(invoice_id=invoice.id, ledger_payment_id=f"bench-payment-{i}", amount=Decimal("1"),
                                  date=date(2026, 3, 2), status="paid"))

        self._top_up("invoice children", n, child, db)

    def _scale_announcements(self, db, n: int) -> None:
        from chalicelib.areas.announcements.models import AnnouncementReceipt
        from tests.areas.announcements.factories import make_announcement

        if "announcement" not in self.ids:
            self.ids["announcement"] = make_announcement(db, title="Bench detail announcement",
                                                         author_id=self.executive_id).id
        self._top_up("announcements", n, lambda db, i: make_announcement(
            db, title=f"Bench announcement {i}", author_id=self.executive_id), db)
        users = self._users(db, n)
        self._top_up("announcement children", n, lambda db, i: db.add(AnnouncementReceipt(
            announcement_id=self.ids["announcement"], user_id=users[i])), db)

    def _scale_leave(self, db, n: int) -> None:
        from datetime import timedelta

        from chalicelib.areas.leave.queries import ENTITY
        from chalicelib.core.history import record as record_history
        from chalicelib.core.models import User
        from tests.areas.leave.factories import make_leave

        worker = db.get(User, self.ids["user"])
        if "leave_request" not in self.ids:
            self.ids["leave_request"] = make_leave(db, worker, notes="Bench detail leave").id
        start = date(2027, 1, 4)
        self._top_up("leave requests", n, lambda db, i: make_leave(
            db, worker, start_date=start + timedelta(days=3 * i), end_date=start + timedelta(days=3 * i + 1)), db)
        self._top_up("leave children", n, lambda db, i: record_history(
            db, entity_type=ENTITY, entity_id=self.ids["leave_request"], action="submitted",
            actor_id=self.ids["user"]), db)

    def _bench_project(self, db) -> str:
        """A project the sprint and roadmap records belong to (plain ids in those areas)."""
        if "bench_project" not in self.ids:
            from tests.areas.projects.factories import make_project

            self.ids["bench_project"] = make_project(db, name="Bench plan project", owner_id=self.executive_id).id
        return self.ids["bench_project"]

    def _scale_sprints(self, db, n: int) -> None:
        from chalicelib.areas.sprints.models import Sprint

        project_id = self._bench_project(db)

        def record(db, i):
            sprint = Sprint(project_id=project_id, name=f"Bench sprint {i}", start_date=date(2026, 1, 5),
                            end_date=date(2026, 1, 18), status="planned", created_by=self.executive_id)
            db.add(sprint)
            if "sprint" not in self.ids:
                db.flush()
                self.ids["sprint"] = sprint.id

        self._top_up("sprints", n, record, db)

    def _scale_roadmaps(self, db, n: int) -> None:
        from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem

        project_id = self._bench_project(db)
        if "roadmap" not in self.ids:
            roadmap = Roadmap(name="Bench detail roadmap", project_id=project_id, created_by=self.executive_id)
            db.add(roadmap)
            db.flush()
            self.ids["roadmap"] = roadmap.id
        self._top_up("roadmaps", n, lambda db, i: db.add(Roadmap(
            name=f"Bench roadmap {i}", project_id=project_id, created_by=self.executive_id)), db)
        self._top_up("roadmap children", n, lambda db, i: db.add(RoadmapItem(
            roadmap_id=self.ids["roadmap"], title=f"Bench item {i}", position=i, start_date=date(2026, 2, 1),
            end_date=date(2026, 3, 1))), db)

    def _scale_sla(self, db, n: int) -> None:
        from chalicelib.areas.sla.models import SlaPolicy, SlaPolicyRule
        from tests.areas.tasks.factories import priority

        high = priority(db, "high")

        def record(db, i):
            policy = SlaPolicy(name=f"Bench policy {i}", created_by=self.executive_id)
            db.add(policy)
            db.flush()
            db.add(SlaPolicyRule(policy_id=policy.id, priority_id=high.id, response_hours=4, resolution_hours=24))
            self.ids.setdefault("sla_policy", policy.id)

        self._top_up("sla policies", n, record, db)

        if "sla_task" not in self.ids:
            from datetime import datetime, timedelta, timezone

            from chalicelib.areas.sla.models import TaskSla
            from tests.areas.tasks.factories import make_task

            task = make_task(db, title="Bench SLA task", priority_id=high.id, created_by=self.executive_id)
            start = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
            db.add(TaskSla(task_id=task.id, policy_id=self.ids["sla_policy"], priority_id=high.id,
                           response_deadline=start + timedelta(hours=4),
                           resolution_deadline=start + timedelta(hours=24)))
            self.ids["sla_task"] = task.id

    def _scale_timesheets(self, db, n: int) -> None:
        from chalicelib.core.models import User
        from tests.areas.timesheets.factories import make_entry

        worker = db.get(User, self.ids["user"])

        def record(db, i):
            entry = make_entry(db, worker, description=f"Bench entry {i}")
            self.ids.setdefault("time_entry", entry.id)

        self._top_up("time entries", n, record, db)

    def _scale_pages(self, db, n: int) -> None:
        from tests.areas.pages.factories import make_page

        def record(db, i):
            page = make_page(db, title=f"Bench page {i}", created_by=self.executive_id)
            self.ids.setdefault("page", page.id)

        self._top_up("pages", n, record, db)

    def _scale_agents(self, db, n: int) -> None:
        from chalicelib.core.models import User
        from tests.areas.agents.factories import make_agent_task, make_run
        from tests.areas.projects.factories import make_project

        owner = db.get(User, self.executive_id)
        if "agent_task" not in self.ids:
            project = make_project(db, name="Bench agent project", owner_id=self.executive_id)
            self.ids["agent_project"] = project.id
            task, agent = make_agent_task(db, project=project, owner=owner, title="Bench detail agent task")
            self.ids["agent_task"] = task.id
        from chalicelib.areas.projects.models import Project
        from chalicelib.areas.tasks.models import Task

        project = db.get(Project, self.ids["agent_project"])
        task = db.get(Task, self.ids["agent_task"])
        self._top_up("agent tasks", n, lambda db, i: make_agent_task(db, project=project, owner=owner,
                                                                     title=f"Bench agent task {i}"), db)
        self._top_up("agent task children", n, lambda db, i: make_run(db, task, stage="scoping"), db)

    def _scale_calendar(self, db, n: int) -> None:
        from datetime import timedelta

        from chalicelib.areas.calendar.models import CultureEvent, PublicHoliday

        start = date(2026, 1, 1)
        self._top_up("calendar", n, lambda db, i: db.add_all([
            CultureEvent(title=f"Bench event {i}", date=start + timedelta(days=i % 365), status="planned",
                         created_by=self.executive_id),
            PublicHoliday(date=start + timedelta(days=i % 365), name=f"Bench holiday {i}", region="AU")]), db)

    def _scale_connections(self, db, n: int) -> None:
        from datetime import datetime, timezone

        from chalicelib.areas.connections.models import Connection, UserMapping
        from chalicelib.core import crypto

        if "connections" not in self.ids:
            for provider in ("ledger", "planner", "chat"):
                db.add(Connection(provider=provider, org_name=f"Bench {provider}", external_id=f"bench-{provider}",
                                  secret=crypto.encrypt('{"access_token": "bench"}'), connected_by=self.executive_id,
                                  connected_at=datetime.now(timezone.utc)))
            self.ids["connections"] = True
        users = self._users(db, n)
        self._top_up("user mappings", n, lambda db, i: db.add(UserMapping(
            user_id=users[i], ledger_id=f"ledger-{i}", planner_id=f"planner-{i}")), db)

    def _scale_insights(self, db, n: int) -> None:
        self._users(db, n)

    def _scale_meetings(self, db, n: int) -> None:
        from chalicelib.areas.meetings.models import MeetingActionItem, MeetingAttendee
        from tests.areas.meetings.factories import make_meeting

        if "meeting" not in self.ids:
            self.ids["meeting"] = make_meeting(db, title="Bench detail meeting").id
        self._top_up("meetings", n, lambda db, i: make_meeting(db, title=f"Bench meeting {i}"), db)
        users = self._users(db, n)

        def child(db, i):
            db.add(MeetingAttendee(meeting_id=self.ids["meeting"], email=f"bench.person{i}@agency.test",
                                   name=f"Bench Person {i}", user_id=users[i]))
            db.add(MeetingActionItem(meeting_id=self.ids["meeting"], position=i, text=f"Bench follow-up {i}",
                                     status="pending", assignee_id=users[i], source="ai"))

        self._top_up("meeting children", n, child, db)

    def _scale_notes(self, db, n: int) -> None:
        from chalicelib.areas.notes.models import Note
        from tests.areas.deals.factories import make_deal

        if "note_deal" not in self.ids:
            self.ids["note_deal"] = make_deal(db, title="Bench noted deal", owner_id=self.executive_id).id
        self._top_up("notes", n, lambda db, i: db.add(Note(
            resource_type="deal", resource_id=self.ids["note_deal"], author_id=self.executive_id,
            content=f"Bench note {i}", visibility=["employee", "manager", "head", "executive"], mentions=[])), db)

    def _scale_onboarding(self, db, n: int) -> None:
        from chalicelib.areas.onboarding.models import OnboardingMilestone, OnboardingStage, OnboardingTemplate

        def stage(db, template_id, i):
            row = OnboardingStage(template_id=template_id, name=f"Bench stage {i}", stage_type="kickoff", sort_order=i)
            db.add(row)
            db.flush()
            db.add(OnboardingMilestone(stage_id=row.id, title=f"Bench milestone {i}", sort_order=0))

        def template(db, name):
            row = OnboardingTemplate(name=name, created_by=self.executive_id)
            db.add(row)
            db.flush()
            return row.id

        if "onboarding_template" not in self.ids:
            self.ids["onboarding_template"] = template(db, "Bench detail template")
        self._top_up("onboarding templates", n, lambda db, i: stage(db, template(db, f"Bench template {i}"), 0), db)
        self._top_up("onboarding children", n, lambda db, i: stage(db, self.ids["onboarding_template"], i), db)

    def _scale_performance(self, db, n: int) -> None:
        from tests.areas.performance.factories import make_cycle, make_review

        if "review_cycle" not in self.ids:
            self.ids["review_cycle"] = make_cycle(db, name="Bench cycle").id
            self.ids["detail_cycle"] = make_cycle(db, name="Bench detail cycle").id
            self.ids["review"] = make_review(db, cycle=_Id(self.ids["detail_cycle"]), user=_Id(self.ids["user"]),
                                             reviewer=_Id(self.executive_id), status="draft").id
        users = self._users(db, n)
        self._top_up("reviews", n, lambda db, i: make_review(
            db, cycle=_Id(self.ids["review_cycle"]), user=_Id(users[i]), reviewer=_Id(self.executive_id)), db)
        from chalicelib.areas.performance.models import ReviewGoal, ReviewKpiRating

        def child(db, i):
            db.add(ReviewKpiRating(review_id=self.ids["review"], area="Delivery", label=f"Bench KPI {i}",
                                   is_mandatory=False, rating=3, sort_order=i))
            db.add(ReviewGoal(review_id=self.ids["review"], goal=f"Bench goal {i}", status="pending", sort_order=i))

        self._top_up("review children", n, child, db)

    def _scale_proposals(self, db, n: int) -> None:
        from chalicelib.areas.proposals.models import Proposal, ProposalApproval
        from tests.areas.pages.factories import make_page

        def proposal(db, title):
            page = make_page(db, title=title, created_by=self.executive_id)
            row = Proposal(title=title, page_id=page.id, status="draft", owner_id=self.executive_id,
                           created_by=self.executive_id)
            db.add(row)
            db.flush()
            return row.id

        if "proposal" not in self.ids:
            self.ids["proposal"] = proposal(db, "Bench detail proposal")
        self._top_up("proposals", n, lambda db, i: proposal(db, f"Bench proposal {i}"), db)
        users = self._users(db, n)
        self._top_up("proposal children", n, lambda db, i: db.add(ProposalApproval(
            proposal_id=self.ids["proposal"], user_id=users[i], listed=True)), db)

    def _scale_relationships(self, db, n: int) -> None:
        from chalicelib.areas.relationships.models import RelationshipAction
        from tests.areas.deals.factories import make_contact

        if "relationship_contact" not in self.ids:
            self.ids["relationship_contact"] = make_contact(db, first_name="Bench", last_name="Relation",
                                                            email="bench.relation@client.test").id
        self._top_up("relationship actions", n, lambda db, i: db.add(RelationshipAction(
            contact_id=self.ids["relationship_contact"], title=f"Bench action {i}", action_type="check_in",
            assigned_to_user_id=self.executive_id, due_date=date(2026, 12, 1), status="pending",
            created_by=self.executive_id)), db)

    def _scale_research(self, db, n: int) -> None:
        from chalicelib.areas.research.models import ResearchBrief
        from tests.areas.deals.factories import make_company

        if "research_company" not in self.ids:
            self.ids["research_company"] = make_company(db, name="Bench researched company").id

        def brief(db, i):
            row = ResearchBrief(entity_type="company", entity_id=self.ids["research_company"],
                                company_id=self.ids["research_company"], url=f"https://bench{i}.example.com",
                                status="completed", brief_content={"summary": f"Bench brief {i}"},
                                created_by=self.executive_id)
            db.add(row)
            if "research_brief" not in self.ids:
                db.flush()
                self.ids["research_brief"] = row.id

        self._top_up("research briefs", n, brief, db)

    def _scale_portal(self, db, n: int) -> None:
        from chalicelib.areas.clients.models import ClientProfile
        from chalicelib.areas.projects.models import Project, ProjectGoal
        from tests.areas.deals.factories import make_company
        from tests.areas.projects.factories import add_member, make_project

        if "portal_company" not in self.ids:
            company = make_company(db, name="Bench portal client", status="client")
            db.add(ClientProfile(company_id=company.id, dashboard_enabled=True, portal_visibility={}))
            self.ids["portal_company"] = company.id
            self.ids["portal_project"] = make_project(db, name="Bench portal detail project", company_id=company.id,
                                                      owner_id=self.executive_id,
                                                      delivery_manager_id=self.ids["user"]).id
        self._top_up("portal projects", n, lambda db, i: make_project(
            db, name=f"Bench portal project {i}", company_id=self.ids["portal_company"],
            owner_id=self.executive_id), db)
        project = db.get(Project, self.ids["portal_project"])
        users = self._users(db, n)

        def child(db, i):
            add_member(db, project, _Id(users[i]))
            db.add(ProjectGoal(project_id=project.id, title=f"Bench portal goal {i}", position=i))

        self._top_up("portal children", n, child, db)


@dataclass
class _Id:
    """A record known by its id (what the factories read of a user or a cycle)."""
    id: str
