"""Factories for the tasks area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools

from chalicelib.areas.tasks.models import Task, TaskTodo, TaskWatcher
from tests.factories import config_item

_seq = itertools.count(1)


def make_task(db, **overrides) -> Task:
    values = {"title": f"Task {next(_seq)}", "is_private": False}
    values.update(overrides)
    task = Task(**values)
    db.add(task)
    db.flush()
    return task


def make_todo(db, task: Task, **overrides) -> TaskTodo:
    values = {"task_id": task.id, "title": f"Todo {next(_seq)}", "is_done": False, "position": 0}
    values.update(overrides)
    todo = TaskTodo(**values)
    db.add(todo)
    db.flush()
    return todo


def add_watcher(db, task: Task, user) -> TaskWatcher:
    watcher = TaskWatcher(task_id=task.id, user_id=user.id)
    db.add(watcher)
    db.flush()
    return watcher


def status(db, value: str):
    return config_item(db, "task_status", value)


def priority(db, value: str):
    return config_item(db, "task_priority", value)


def task_type(db, value: str):
    return config_item(db, "task_type", value)


def phase(db, value: str):
    return config_item(db, "task_phase", value)
