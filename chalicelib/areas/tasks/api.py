"""Tasks routes (tool `tasks`): reads, watch and unwatch need view; writes update; delete manage."""
from chalice import Blueprint, Rate

from chalicelib.core.history import HistoryEntryRead
from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, PageQuery, many, one, paged

from . import jobs, queries, service, service_links, service_todos
from .schemas import (ResourceCreate, ResourceRead, ResourceReorder, SubtaskCreate, TaskCreate, TaskDetail, TaskListQuery,
                      TaskRead, TaskUpdate, TodoRead, TodosReplace, WatchingResponse)

bp = Blueprint(__name__)


@bp.route("/api/tasks", methods=["GET"])
@endpoint(tool="tasks", level="view", query=TaskListQuery, response=paged("tasks", TaskRead))
def list_tasks(ctx, query: TaskListQuery):
    """List the tasks the caller may see (filters; `limit` at most 500 and `offset`, with `total`)."""
    return service.list_tasks(ctx, query=query).body("tasks")


@bp.route("/api/tasks", methods=["POST"])
@endpoint(tool="tasks", level="update", body=TaskCreate, status=201, response=one("task", TaskRead))
def create_task(ctx, body: TaskCreate):
    """Create a task."""
    return {"task": service.create_task(ctx, data=body)}


@bp.route("/api/tasks/{task_id}", methods=["GET"])
@endpoint(tool="tasks", level="view", response=TaskDetail)
def get_task(ctx, task_id: str):
    """A task with its todos, subtasks, watchers and agent meta record; subtasks too long to answer together are
    cut to those that fit (fewer than the task's `subtask_count`: read them from GET /subtasks, paged)."""
    from chalicelib.core.query import FitBody

    return FitBody("subtasks", service.task_detail(ctx, task_id))


@bp.route("/api/tasks/{task_id}", methods=["PUT"])
@endpoint(tool="tasks", level="update", body=TaskUpdate, response=one("task", TaskRead))
def update_task(ctx, task_id: str, body: TaskUpdate):
    """Update any subset of a task's writable fields."""
    return {"task": service.update_task(ctx, task_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}", methods=["DELETE"])
@endpoint(tool="tasks", level="manage", response=OkResponse)
def delete_task(ctx, task_id: str):
    """Delete a task (with its subtasks, todos, watchers and links)."""
    service.delete_task(ctx, task_id=task_id)
    return {"ok": True}


@bp.route("/api/tasks/{task_id}/duplicate", methods=["POST"])
@endpoint(tool="tasks", level="update", status=201, response=one("task", TaskRead))
def duplicate_task(ctx, task_id: str):
    """Copy a task: ` (copy)` title, default status, the caller as reporter."""
    return {"task": service.duplicate_task(ctx, task_id=task_id)}


@bp.route("/api/tasks/{task_id}/history", methods=["GET"])
@endpoint(tool="tasks", level="view", query=PageQuery, response=paged("history", HistoryEntryRead))
def task_history(ctx, task_id: str, query: PageQuery):
    """The task's history events, newest first (paged)."""
    return service.task_history(ctx, task_id=task_id, query=query).body("history")


@bp.route("/api/tasks/{task_id}/todos", methods=["PUT"])
@endpoint(tool="tasks", level="update", body=TodosReplace, response=many("todos", TodoRead))
def replace_todos(ctx, task_id: str, body: TodosReplace):
    """Replace the task's whole checklist."""
    return {"todos": service_todos.replace_todos(ctx, task_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}/subtasks", methods=["GET"])
@endpoint(tool="tasks", level="view", query=PageQuery, response=paged("subtasks", TaskRead))
def list_subtasks(ctx, task_id: str, query: PageQuery):
    """The task's subtasks, by sort_order then created_at (paged)."""
    queries.load_task(ctx, task_id)
    return service.subtask_page(ctx, task_id, query).body("subtasks")


@bp.route("/api/tasks/{task_id}/subtasks", methods=["POST"])
@endpoint(tool="tasks", level="update", body=SubtaskCreate, status=201, response=one("task", TaskRead))
def create_subtask(ctx, task_id: str, body: SubtaskCreate):
    """Create a subtask."""
    return {"task": service.create_subtask(ctx, parent_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}/watch", methods=["POST"])
@endpoint(tool="tasks", level="view", response=WatchingResponse)
def watch_task(ctx, task_id: str):
    """Watch a task (idempotent)."""
    service_links.watch(ctx, task_id=task_id)
    return {"watching": True}


@bp.route("/api/tasks/{task_id}/watch", methods=["DELETE"])
@endpoint(tool="tasks", level="view", response=WatchingResponse)
def unwatch_task(ctx, task_id: str):
    """Stop watching a task (idempotent)."""
    service_links.unwatch(ctx, task_id=task_id)
    return {"watching": False}


@bp.route("/api/tasks/{task_id}/resources", methods=["GET"])
@endpoint(tool="tasks", level="view", response=many("resources", ResourceRead))
def list_task_resources(ctx, task_id: str):
    """Links attached to a task, by sort_order then created_at."""
    return {"resources": service_links.list_resources(ctx, task_id=task_id)}


@bp.route("/api/tasks/{task_id}/resources", methods=["POST"])
@endpoint(tool="tasks", level="update", body=ResourceCreate, status=201, response=one("resource", ResourceRead))
def add_task_resource(ctx, task_id: str, body: ResourceCreate):
    """Attach a link to a task (icon derived from its domain)."""
    return {"resource": service_links.add_resource(ctx, task_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}/resources/reorder", methods=["PUT"])
@endpoint(tool="tasks", level="update", body=ResourceReorder, response=OkResponse)
def reorder_task_resources(ctx, task_id: str, body: ResourceReorder):
    """Set the links' sort_order by their index in `order`."""
    service_links.reorder_resources(ctx, task_id=task_id, data=body)
    return {"ok": True}


@bp.route("/api/tasks/{task_id}/resources/{resource_id}", methods=["DELETE"])
@endpoint(tool="tasks", level="update", response=OkResponse)
def delete_task_resource(ctx, task_id: str, resource_id: str):
    """Remove a link from a task."""
    service_links.delete_resource(ctx, task_id=task_id, resource_id=resource_id)
    return {"ok": True}


@bp.schedule(Rate(1, unit=Rate.HOURS))
def task_due_soon(event):
    """Tell assignees of open tasks due today or tomorrow (once per assignment and due date)."""
    return jobs.due_soon()
