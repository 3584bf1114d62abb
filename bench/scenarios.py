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


def _task_body(ds, i):
    return {"title": f"Bench task {i}", "assignee_id": ds.ids["user"], "status_id": ds.ids.get("task_status")}


ENDPOINTS = [
    Endpoint("me", "admin", "GET", "/api/me", "detail", "nothing (the caller)", floor_target=5.0, per_record=True),
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
             per_record=True),
    Endpoint("config lists", "config_lists", "GET", "/api/config-lists", "list", "items of one list"),
    Endpoint("config list items", "config_lists", "GET", "/api/config-lists/{key}/items", "list",
             "items of the list", params=lambda ds: {"key": ds.ids["config_key"]}),
    Endpoint("notifications list", "notifications", "GET", "/api/notifications", "list",
             "notifications of the caller (the page is at most 100)", query={"limit": "100"}),
    Endpoint("action item list", "action_items", "GET", "/api/action-items", "list",
             "action items assigned to the caller (the page is at most 100)", query={"limit": "100"}),
    Endpoint("action centre", "action_items", "GET", "/api/action-items/centre", "list",
             "action items assigned to the caller (the centre's first page)"),
]


@dataclass
class Dataset:
    """Records the endpoints read; `scale(n)` adds rows until each kind has n."""

    app: object
    executive_id: str
    ids: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)

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
            routes = {(e.method, e.resource) for e in ENDPOINTS if self.has_route(e)}
            if ("GET", "/api/tasks") in routes:
                self._scale_tasks(db, n)
            if ("GET", "/api/projects") in routes:
                self._scale_projects(db, n)
            if ("GET", "/api/budgets") in routes:
                self._scale_budgets(db, n)
            if ("GET", "/api/config-lists") in routes:
                self._scale_config(db, n)
            if ("GET", "/api/notifications") in routes:
                self._scale_notifications(db, n)
            if ("GET", "/api/action-items") in routes:
                self._scale_action_items(db, n)

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
