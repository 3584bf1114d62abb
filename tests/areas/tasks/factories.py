"""Factories for the tasks area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from sqlalchemy import select

from chalicelib.areas.sla.models import SlaPolicy, SlaPolicyRule
from chalicelib.areas.tasks.models import Task, TaskTodo, TaskWatcher
from tests.factories import add_row, config_item

_seq = itertools.count(1)


def make_task(db, **overrides) -> Task:
    return add_row(db, Task, {"title": f"Task {next(_seq)}", "is_private": False}, overrides)


def make_todo(db, task: Task, **overrides) -> TaskTodo:
    return add_row(db, TaskTodo, {"task_id": task.id, "title": f"Todo {next(_seq)}", "is_done": False, "position": 0},
                   overrides)


def add_watcher(db, task: Task, user) -> TaskWatcher:
    watcher = TaskWatcher(task_id=task.id, user_id=user.id)
    db.add(watcher)
    db.flush()
    return watcher


def watcher_ids(db, task_id) -> list[str]:
    """The ids of the users watching task `task_id`, sorted (read afresh)."""
    db.expire_all()
    return sorted(db.scalars(select(TaskWatcher.user_id).where(TaskWatcher.task_id == task_id)).all())


def status(db, value: str):
    return config_item(db, "task_status", value)


def priority(db, value: str):
    return config_item(db, "task_priority", value)


def task_type(db, value: str):
    return config_item(db, "task_type", value)


def phase(db, value: str):
    return config_item(db, "task_phase", value)


def sla_policy(db, name: str = "Support", rules=((1, 2),), priority: str = "high") -> SlaPolicy:
    """A service level policy with a rule (response hours, resolution hours) of `rules` each for task priority
    `priority`."""
    made = SlaPolicy(name=name)
    db.add(made)
    db.flush()
    item = config_item(db, "task_priority", priority)
    for response, resolution in rules:
        db.add(SlaPolicyRule(policy_id=made.id, priority_id=item.id, response_hours=response,
                             resolution_hours=resolution))
    db.flush()
    return made


def iso_z(moment) -> str:
    """`moment` as the API's UTC timestamp (seconds, `Z`)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + "Z"
