"""Task watchers and attached links (resources)."""
from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import delete, func, select

from chalicelib.core.errors import BadRequest, Conflict
from chalicelib.core.locks import insert_ignore, lock_row, reorder
from chalicelib.core.models import User
from chalicelib.core.query import visible_row
from chalicelib.core.serialize import row_dict

from .models import Task, TaskResource, TaskWatcher
from .queries import load_task
from .schemas import ResourceCreate, ResourceReorder

MAX_RESOURCES = 500  # a task holds at most 500 links (409 beyond), so the list never cuts one off
RESOURCE_FIELDS = ("id", "task_id", "type", "url", "title", "description", "icon", "sort_order", "created_by",
                   "created_at")

# Domain -> icon. A host matches a domain when it equals it or is a subdomain of it.
ICON_DOMAINS = (
    (("figma.com",), "figma"),
    (("github.com", "gitlab.com", "bitbucket.org", "bitbucket.com"), "code"),
    (("docs.google.com", "drive.google.com", "sheets.google.com", "slides.google.com", "notion.so", "notion.site",
      "confluence.com"), "document"),
    (("slack.com", "teams.microsoft.com", "teams.live.com"), "chat"),
    (("loom.com", "youtube.com", "youtu.be", "vimeo.com"), "video"),
)


def icon_for(url: str) -> str:
    # the host as the browser reads it: any case, with or without `www.` and a fully qualified name's trailing dot
    # (`github.com.` is github.com; session 32)
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    if host.startswith("www."):
        host = host[4:]
    for domains, icon in ICON_DOMAINS:
        if any(host == domain or host.endswith("." + domain) for domain in domains):
            return icon
    if host.endswith(".atlassian.net") and "/wiki" in urlsplit(url).path:
        return "document"  # Confluence Cloud
    return "link"


# --- watchers -------------------------------------------------------------------------------------

def watch(ctx, *, task_id: str) -> None:
    task = load_task(ctx, task_id)
    # idempotent under concurrency: a watcher made meanwhile by another request is no conflict
    insert_ignore(ctx.db, TaskWatcher, {"task_id": task.id, "user_id": ctx.user_id}, conflict=("task_id", "user_id"))


def unwatch(ctx, *, task_id: str) -> None:
    task = load_task(ctx, task_id)
    # one DELETE statement: a watcher removed meanwhile by another request is no error
    ctx.db.execute(delete(TaskWatcher).where(TaskWatcher.task_id == task.id, TaskWatcher.user_id == ctx.user_id)
                   .execution_options(synchronize_session=False))


# --- resources ------------------------------------------------------------------------------------

def _resource_select():
    return (select(TaskResource, User.name).outerjoin(User, User.id == TaskResource.created_by))


def _resource_record(resource: TaskResource, creator_name: str | None) -> dict:
    record = row_dict(resource, RESOURCE_FIELDS)
    record["created_by_name"] = creator_name
    return record


def list_resources(ctx, *, task_id: str) -> list[dict]:
    task = load_task(ctx, task_id)
    stmt = _resource_select().where(TaskResource.task_id == task.id).order_by(
        TaskResource.sort_order.asc().nulls_last(), TaskResource.created_at, TaskResource.id).limit(MAX_RESOURCES)
    return [_resource_record(resource, name) for resource, name in ctx.db.execute(stmt).all()]


def _is_web_url(url: str) -> bool:
    """An http or https URL with a host; a URL urlsplit cannot parse (`http://[::1`) is not one."""
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def add_resource(ctx, *, task_id: str, data: ResourceCreate) -> dict:
    load_task(ctx, task_id)
    task = lock_row(ctx.db, Task, task_id, missing="Task")  # the next sort_order is read and taken by one request at a time
    url = (data.url or "").strip()
    title = (data.title or "").strip()
    details = []
    if not url:
        details.append({"field": "url", "message": "url is required"})
    elif not _is_web_url(url):
        details.append({"field": "url", "message": "must be an http or https URL"})
    if not title:
        details.append({"field": "title", "message": "title is required"})
    if details:
        raise BadRequest("A resource needs a url and a title", details=details)
    next_order, count = ctx.db.execute(select(func.coalesce(func.max(TaskResource.sort_order) + 1, 0),
                                              func.count(TaskResource.id)).where(TaskResource.task_id == task.id)).one()
    if count >= MAX_RESOURCES:
        raise Conflict(f"A task holds at most {MAX_RESOURCES} links")
    resource = TaskResource(task_id=task.id, type="link", url=url, title=title, description=data.description,
                            icon=icon_for(url), sort_order=int(next_order or 0), created_by=ctx.user_id)
    ctx.db.add(resource)
    ctx.db.flush()
    return _resource_record(resource, ctx.user.name)


def delete_resource(ctx, *, task_id: str, resource_id: str) -> None:
    task = load_task(ctx, task_id)
    ctx.db.delete(visible_row(ctx.db, TaskResource, resource_id, TaskResource.task_id == task.id, "Resource"))
    ctx.db.flush()


def reorder_resources(ctx, *, task_id: str, data: ResourceReorder) -> None:
    load_task(ctx, task_id)
    task = lock_row(ctx.db, Task, task_id, missing="Task")  # one reorder at a time: the result is exactly one request's order
    order = data.order or []
    if not order:
        raise BadRequest("order must be a non-empty list of resource ids",
                         details=[{"field": "order", "message": "must be a non-empty list of resource ids"}])
    reorder(ctx.db, TaskResource, TaskResource.sort_order, order, parent=TaskResource.task_id == task.id,
            field="order", what="links attached to this task")
