"""Tasks routes (tool `tasks`): reads, watch and unwatch need view; writes update; delete manage."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service, service_links, service_todos
from .schemas import ResourceCreate, ResourceReorder, SubtaskCreate, TaskCreate, TaskListQuery, TaskUpdate, TodosReplace

bp = Blueprint(__name__)


@bp.route("/api/tasks", methods=["GET"])
@endpoint(tool="tasks", level="view", query=TaskListQuery)
def list_tasks(ctx, query: TaskListQuery):
    """List the tasks the caller may see (filters, at most 500)."""
    return {"tasks": service.list_tasks(ctx, query=query)}


@bp.route("/api/tasks", methods=["POST"])
@endpoint(tool="tasks", level="update", body=TaskCreate, status=201)
def create_task(ctx, body: TaskCreate):
    """Create a task."""
    return {"task": service.create(ctx, data=body)}


@bp.route("/api/tasks/{task_id}", methods=["GET"])
@endpoint(tool="tasks", level="view")
def get_task(ctx, task_id: str):
    """A task with its todos, subtasks, watchers and agent meta record."""
    return service.detail(ctx, task_id=task_id)


@bp.route("/api/tasks/{task_id}", methods=["PUT"])
@endpoint(tool="tasks", level="update", body=TaskUpdate)
def update_task(ctx, task_id: str, body: TaskUpdate):
    """Update any subset of a task's writable fields."""
    return {"task": service.update(ctx, task_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}", methods=["DELETE"])
@endpoint(tool="tasks", level="manage")
def delete_task(ctx, task_id: str):
    """Delete a task (with its subtasks, todos, watchers and links)."""
    service.remove(ctx, task_id=task_id)
    return {"ok": True}


@bp.route("/api/tasks/{task_id}/duplicate", methods=["POST"])
@endpoint(tool="tasks", level="update", status=201)
def duplicate_task(ctx, task_id: str):
    """Copy a task: ` (copy)` title, default status, the caller as reporter."""
    return {"task": service.duplicate(ctx, task_id=task_id)}


@bp.route("/api/tasks/{task_id}/history", methods=["GET"])
@endpoint(tool="tasks", level="view")
def task_history(ctx, task_id: str):
    """The task's history events, newest first."""
    return {"history": service.task_history(ctx, task_id=task_id)}


@bp.route("/api/tasks/{task_id}/todos", methods=["PUT"])
@endpoint(tool="tasks", level="update", body=TodosReplace)
def replace_todos(ctx, task_id: str, body: TodosReplace):
    """Replace the task's whole checklist."""
    return {"todos": service_todos.replace_todos(ctx, task_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}/subtasks", methods=["GET"])
@endpoint(tool="tasks", level="view")
def list_subtasks(ctx, task_id: str):
    """The task's subtasks, by sort_order then created_at."""
    service.visible_task(ctx, task_id)
    return {"subtasks": service.subtask_records(ctx, task_id)}


@bp.route("/api/tasks/{task_id}/subtasks", methods=["POST"])
@endpoint(tool="tasks", level="update", body=SubtaskCreate, status=201)
def create_subtask(ctx, task_id: str, body: SubtaskCreate):
    """Create a subtask."""
    return {"task": service.create_subtask(ctx, parent_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}/watch", methods=["POST"])
@endpoint(tool="tasks", level="view")
def watch_task(ctx, task_id: str):
    """Watch a task (idempotent)."""
    return service_links.watch(ctx, task_id=task_id)


@bp.route("/api/tasks/{task_id}/watch", methods=["DELETE"])
@endpoint(tool="tasks", level="view")
def unwatch_task(ctx, task_id: str):
    """Stop watching a task (idempotent)."""
    return service_links.unwatch(ctx, task_id=task_id)


@bp.route("/api/tasks/{task_id}/resources", methods=["GET"])
@endpoint(tool="tasks", level="view")
def list_task_resources(ctx, task_id: str):
    """Links attached to a task, by sort_order then created_at."""
    return {"resources": service_links.list_resources(ctx, task_id=task_id)}


@bp.route("/api/tasks/{task_id}/resources", methods=["POST"])
@endpoint(tool="tasks", level="update", body=ResourceCreate, status=201)
def add_task_resource(ctx, task_id: str, body: ResourceCreate):
    """Attach a link to a task (icon derived from its domain)."""
    return {"resource": service_links.add_resource(ctx, task_id=task_id, data=body)}


@bp.route("/api/tasks/{task_id}/resources/reorder", methods=["PUT"])
@endpoint(tool="tasks", level="update", body=ResourceReorder)
def reorder_task_resources(ctx, task_id: str, body: ResourceReorder):
    """Set the links' sort_order by their index in `order`."""
    service_links.reorder_resources(ctx, task_id=task_id, data=body)
    return {"ok": True}


@bp.route("/api/tasks/{task_id}/resources/{resource_id}", methods=["DELETE"])
@endpoint(tool="tasks", level="update")
def delete_task_resource(ctx, task_id: str, resource_id: str):
    """Remove a link from a task."""
    service_links.delete_resource(ctx, task_id=task_id, resource_id=resource_id)
    return {"ok": True}
