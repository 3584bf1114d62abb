"""Tasks: the check of what a task write names (config items, users, reporting contact, parent, linked resource,
roadmap item, sprint), `check_references`, called by the creates and the update of service.py, and that of the links a duplicate
copies, `copied_links`."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from sqlalchemy import String, case, cast, func, literal_column, null, select, union_all

from chalicelib.core.errors import BadRequest, Conflict, Forbidden, NotFound
from chalicelib.core.ids import utcnow
from chalicelib.core.lookup import Names
from chalicelib.core.models import ConfigList, ConfigListItem, User
from chalicelib.core.query import Read, ids_param, ids_value, template

from .models import Task
from .queries import visible

CONFIG_FIELDS = {"status_id": "task_status", "priority_id": "task_priority", "type_id": "task_type",
                 "phase_id": "task_phase"}
USER_FIELDS = ("assignee_id", "reporter_id", "approved_by_user_id")
RESOURCE_TYPES = ("project", "deal", "company")


def _linked_resource_problem(ctx, resource_type: str | None, resource_id: str | None) -> str | None:
    """Why the linked resource is refused, or None: a project must be one the caller can see (a hidden one
    answers like a missing one), a deal or company must exist (they are not scoped). The record is share-locked
    (FOR KEY SHARE, the `link_*` of its area): a delete of it in progress is waited for and then refuses the link,
    and its delete, which locks the row first, waits for this write and then unlinks the task."""
    if resource_type is None and resource_id is None:
        return None
    if resource_type is None or resource_id is None:
        return "resource_type and resource_id are set together"
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

        try:
            projects_service.link_project(ctx, resource_id)  # projects:view and the row scope (session 29)
        except NotFound:
            return "must be an existing project you can see"
        return None
    if resource_type in ("deal", "company"):
        from chalicelib.areas.deals import service as deals_service  # another area: imported lazily

        # seen with `deals:view`, which link_deal and link_company ask (session 29: a caller whose deals permission
        # is none linked any deal or company, learning which ids exist); answered as a missing one
        exists = (deals_service.link_deal(ctx, resource_id) if resource_type == "deal"
                  else deals_service.link_company(ctx, resource_id))
        return None if exists else f"must be an existing {resource_type}"
    return f"resource_type must be one of {', '.join(RESOURCE_TYPES)}"


def _roadmap_item_seen(ctx, item_id: str) -> bool:
    """Whether the caller sees the roadmap item: roadmaps' `visible_item_exists` (`roadmaps:view` and an item of a
    roadmap in their scope; it share-locks the item)."""
    from chalicelib.areas.roadmaps import service as roadmaps_service  # another area: imported lazily

    return roadmaps_service.visible_item_exists(ctx, item_id)


def _sprint_status(ctx, sprint_id: str) -> str | None:
    """The sprint's status when the caller sees it, else None: sprints' `visible_sprint_status` (`projects:view`, the
    sprints routes' tool, and a sprint of a project in their scope; it share-locks the sprint, so a close in progress
    is waited for)."""
    from chalicelib.areas.sprints import service as sprints_service  # another area: imported lazily

    return sprints_service.visible_sprint_status(ctx, sprint_id)


CLOSED_SPRINT = "closed"  # a closed sprint's contents are fixed (session 31): no task is put into one


@dataclass
class References(Names):
    """What `check_references` read: the names and labels of the users and config items a write names, and which of
    those users are active and hold `tasks:view` (`tasks_viewers`). An assignee always has their task in its scope
    (`queries.visible`), so an assignee among `tasks_viewers` may read the task: `task_assigned` tells them its text
    (docs/decisions/tasks.md, Notifications) without a read of its own."""

    tasks_viewers: set = field(default_factory=set)


@cache
def _tasks_viewers():
    """The users whose effective `tasks` permission is at least view (core.permissions.holders_select: override,
    else matrix cell, else default), as a derived table the references read left-joins by user id (Postgres pulls
    it up into the join: the named users' rows only). Built once per process."""
    from chalicelib.core.permissions import holders_select

    return holders_select("tasks", "view").subquery("tasks_viewers")


def _contact_part(contacts):
    """The rows (kind 'c', id, first and last name) of the deals area's `contact_names_select` statement, shaped as
    the other parts of the references read, so the reporting contact is read in the same statement."""
    found = contacts.subquery("ref_contacts")
    return select(literal_column("'c'").label("kind"), found.c.id.label("id"), cast(null(), String).label("key"),
                  found.c.first_name.label("a"), found.c.last_name.label("b"), cast(null(), String).label("c"))


def _references_parts(item_where, user_where, viewers: bool = False, contacts=None):
    parts = []
    if item_where is not None:
        parts.append(select(literal_column("'i'").label("kind"), ConfigListItem.id.label("id"),
                            ConfigList.key.label("key"), ConfigListItem.label.label("a"),
                            ConfigListItem.color.label("b"), ConfigListItem.value.label("c"))
                     .join(ConfigList, ConfigList.id == ConfigListItem.list_id).where(item_where))
    if user_where is not None:
        # a user's `key` says whether they are active (a deactivated user is no assignee or reporter); with
        # `viewers` (a write that tells an assignee), `viewer` when they may also view tasks (References.tasks_viewers)
        active = User.is_active.is_(True)
        whens = [(active, literal_column("'active'"))]
        if viewers:
            whens.insert(0, (active & _tasks_viewers().c.id.is_not(None), literal_column("'viewer'")))
        users = select(literal_column("'u'").label("kind"), User.id.label("id"),
                       case(*whens, else_=cast(null(), String)).label("key"),
                       User.name.label("a"), User.picture.label("b"), cast(null(), String).label("c"))
        if viewers:
            users = users.select_from(User).outerjoin(_tasks_viewers(), _tasks_viewers().c.id == User.id)
        parts.append(users.where(user_where))
    if contacts is not None:
        parts.append(_contact_part(contacts))
    return parts[0] if len(parts) == 1 else union_all(*parts)


@template
def _references_template(postgres: bool, items: bool, users: bool, viewers: bool, contacts=None):
    # `contacts`: the deals area's template of its contact names (one per process), or None
    return _references_parts(ids_param(ConfigListItem.id, "ref_item_ids", postgres) if items else None,
                             ids_param(User.id, "ref_user_ids", postgres) if users else None, viewers, contacts)


def _references_read(db, config_ids: set, user_ids: set, viewers: bool, contact_id: str | None = None) -> Read | None:
    """The config items (with their list's key), users and reporting contact a write names (rows kind, id, key, a,
    b, c; a contact is kind 'c', read through the deals area's `contact_names_select`), built once per process;
    None when it names none. An id holding a comma gets a statement of its own. `viewers`: a user's key also says
    whether they view tasks (a write that tells its new assignee)."""
    if not config_ids and not user_ids and not contact_id:
        return None
    contacts = None
    if contact_id:
        from chalicelib.areas.deals import service as deals_service  # another area: imported lazily

        contacts = deals_service.contact_names_select(db, [contact_id])
    postgres = db.get_bind().dialect.name == "postgresql"
    items, users = ids_value(config_ids, postgres), ids_value(user_ids, postgres)
    if items is None or users is None or (contact_id and ids_value([contact_id], postgres) is None):
        return Read(_references_parts(ConfigListItem.id.in_(config_ids) if config_ids else None,
                                      User.id.in_(user_ids) if user_ids else None, viewers,
                                      contacts.stmt if contacts is not None else None),
                    contacts.params if contacts is not None else {})
    params = dict(contacts.params) if contacts is not None else {}
    if items:
        params["ref_item_ids"] = items
    if users:
        params["ref_user_ids"] = users
    return Read(_references_template(postgres, bool(items), bool(users), viewers and bool(users),
                                     contacts.stmt if contacts is not None else None), params)


def dated_approval(values: dict, changed: dict) -> None:
    """An approval's time follows its approver (session 24): when the approver changes (`changed`, what the write
    changes; the reference check has passed) and no changed `approved_at` is sent, `values` (what is written) take
    the time too: null when the approver is cleared (withdrawing is both null together), now when one is set (a
    second approver is not dated at the first one's time; a create naming an approver is dated now). A time sent
    explicitly, and checked as such, is written as sent."""
    if "approved_by_user_id" in changed and "approved_at" not in changed:
        values["approved_at"] = utcnow() if changed["approved_by_user_id"] else None


def check_references(ctx, values: dict, *, task_id: str | None = None, current: Task | None = None) -> References:
    """Config item ids must belong to their list, user ids must exist, a reporting contact must exist (session
    26; contacts are not record-scoped: read in the same statement as the items and users), the parent must be a
    task the caller can see (an invisible parent answers like a missing one), a due date not before the start date
    (the stored one of a field not sent): else 400. Answers the names and labels of the
    users and config items it read (a record built next need not look them up again), and which of those users
    hold `tasks:view` (References)."""
    db = ctx.db
    approver = values.get("approved_by_user_id")
    if approver and approver != ctx.user_id:  # an approval is recorded by the one who gives it, never for another
        raise Forbidden("approved_by_user_id may name only yourself: you record your own approval")
    if "approved_at" in values:  # a changed time (values hold what changes): half of the approval, the approver's own
        after = values.get("approved_by_user_id", current.approved_by_user_id if current is not None else None)
        # set or moved: only by the approver after the write; cleared: with the approver (anyone withdraws both)
        if after != ctx.user_id and (values["approved_at"] is not None or after is not None):
            raise Forbidden("approved_at is set only with your own approval: approved_by_user_id must be you")
    details = []
    config_ids = {values[name] for name in CONFIG_FIELDS if values.get(name)}
    user_ids = {values[name] for name in USER_FIELDS if values.get(name)}
    # the config items with their list, and the users, in one statement (with what records show); a new assignee
    # other than the caller is told the task, its text only when they view tasks: asked in the same statement
    assignee = values.get("assignee_id")
    contact_id = values.get("reported_by_contact_id")
    # a contact is seen with `deals:view` (session 29: the existence check alone was asked); not read without it
    contact_seen = bool(contact_id) and ctx.can("deals", "view")
    read = _references_read(db, config_ids, user_ids, bool(assignee) and assignee != ctx.user_id,
                            contact_id if contact_seen else None)
    rows = db.execute(read.stmt, read.params).all() if read is not None else []
    found = {row[1]: row[2] for row in rows if row[0] == "i"}
    existing = {row[1] for row in rows if row[0] == "u"}
    active = {row[1] for row in rows if row[0] == "u" and row[2] in ("active", "viewer")}
    contacts = {row[1] for row in rows if row[0] == "c"}
    known = References.of((kind, row_id, a, b, c) for kind, row_id, _key, a, b, c in rows if kind != "c")
    known.tasks_viewers = {row[1] for row in rows if row[0] == "u" and row[2] == "viewer"}
    for name, list_key in CONFIG_FIELDS.items():
        value = values.get(name)
        if value and found.get(value) != list_key:
            details.append({"field": name, "message": f"must be an item of the {list_key} list"})
    for name in USER_FIELDS:
        value = values.get(name)
        if value and value not in existing:
            details.append({"field": name, "message": "must be an existing user"})
        elif value and value not in active:  # nobody who cannot sign in is given (or reports) a task
            details.append({"field": name, "message": "must be an active user"})
    # as every contact reference (deals, invoices, proposals)
    if contact_id and (not contact_seen or contact_id not in contacts):
        details.append({"field": "reported_by_contact_id", "message": "must be an existing contact"})
    if "start_date" in values or "due_date" in values:  # a task is not due before it starts (session 28)
        start = values["start_date"] if "start_date" in values else getattr(current, "start_date", None)
        due = values["due_date"] if "due_date" in values else getattr(current, "due_date", None)
        if start and due and due < start:
            details.append({"field": "due_date", "message": "must not be before start_date"} if "due_date" in values
                           else {"field": "start_date", "message": "must not be after due_date"})
    parent_id = values.get("parent_task_id")
    if parent_id:
        if parent_id == task_id:
            details.append({"field": "parent_task_id", "message": "a task cannot be its own parent"})
        elif db.scalar(select(Task.id).where(Task.id == parent_id, visible(ctx.principal))) is None:
            details.append({"field": "parent_task_id", "message": "must be an existing task"})
        elif task_id is not None and _is_descendant(db, parent_id, task_id):
            details.append({"field": "parent_task_id", "message": "a task cannot be moved under its own subtask"})
    if "resource_type" in values or "resource_id" in values:
        resource_type = values.get("resource_type", current.resource_type if current is not None else None)
        resource_id = values.get("resource_id", current.resource_id if current is not None else None)
        problem = _linked_resource_problem(ctx, resource_type, resource_id)
        if problem:
            details.append({"field": "resource_id" if "resource_id" in values else "resource_type",
                            "message": problem})
    roadmap_item_id = values.get("roadmap_item_id")
    if roadmap_item_id and not _roadmap_item_seen(ctx, roadmap_item_id):
        details.append({"field": "roadmap_item_id", "message": "must be an existing roadmap item"})
    sprint_id = values.get("sprint_id")
    sprint_status = _sprint_status(ctx, sprint_id) if sprint_id else None
    if sprint_id and sprint_status is None:
        details.append({"field": "sprint_id", "message": "must be an existing sprint"})
    if details:
        raise BadRequest("Invalid task fields", details=details)
    # a task goes into a planned or active sprint, never a closed one (its report stays true); `values` hold what
    # the write changes, so a task of a closed sprint sent back whole, or taken out of it, is not refused
    if sprint_status == CLOSED_SPRINT:
        raise Conflict("Sprint is closed")
    return known


def copied_links(ctx, task: Task) -> dict:
    """The links of `task` a duplicate of it may not copy, as `{field: None}`: each link is checked as a create naming
    it would be (`check_references`), one statement per kind the task links, in the order a create locks them: the
    linked resource (a project the caller can see, an existing deal or company, share-locked by its area's `link_*`),
    the roadmap item (`visible_item_exists`, share-locked), the sprint (`visible_sprint_status`; a closed one is left
    null too, session 31), the reporting contact (`deals:view`, session 32) and the parent task (one the caller can
    see, share-locked FOR KEY SHARE here: the lock the copy's foreign key takes at its INSERT).
    A record the caller cannot see, or one that is gone (deleted meanwhile: its delete in progress is waited for),
    is left null on the copy rather than refused, as the duplicate's request names none of them (session 24). A
    record kept stays share-locked until the copy commits: its delete, which locks the row first, then waits and
    unlinks the copy with the rest."""
    db = ctx.db
    cleared = {}
    if (task.resource_type is not None or task.resource_id is not None) and \
            _linked_resource_problem(ctx, task.resource_type, task.resource_id):
        cleared.update(resource_type=None, resource_id=None)
    if task.roadmap_item_id and not _roadmap_item_seen(ctx, task.roadmap_item_id):
        cleared["roadmap_item_id"] = None
    if task.sprint_id and _sprint_status(ctx, task.sprint_id) in (None, CLOSED_SPRINT):  # a closed one too (session 31)
        cleared["sprint_id"] = None
    # the reporting contact, seen with `deals:view` as a create's (`check_references`; session 29): it was copied
    # whatever the caller's deals permission (session 32). It exists (its key clears it on delete): no read here
    if task.reported_by_contact_id and not ctx.can("deals", "view"):
        cleared["reported_by_contact_id"] = None
    if task.parent_task_id:
        parent = select(Task.id).where(Task.id == task.parent_task_id, visible(ctx.principal)).with_for_update(
            read=True, key_share=True, of=Task)
        if db.scalar(parent) is None:
            cleared["parent_task_id"] = None
    return cleared


def _is_descendant(db, candidate_id: str, ancestor_id: str) -> bool:
    """Whether `candidate_id` sits below `ancestor_id`: one statement (a recursive CTE walking up the parents,
    bounded at 100 levels; a chain deeper than that answers True, as a cycle would)."""
    from sqlalchemy import literal

    up = (select(Task.parent_task_id.label("id"), literal(1).label("depth")).where(Task.id == candidate_id)
          .cte("task_parents", recursive=True))
    up = up.union_all(select(Task.parent_task_id, up.c.depth + 1).join(up, Task.id == up.c.id)
                      .where(up.c.depth < _PARENT_WALK))
    found = db.execute(select(func.count().filter(up.c.id == ancestor_id),
                              func.count().filter(up.c.depth == _PARENT_WALK, up.c.id.is_not(None)))).one()
    return bool(found[0] or found[1])


_PARENT_WALK = 100  # levels of parents the move check walks up
