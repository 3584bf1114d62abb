"""Service levels: policies with per-priority rules (scope and reads are in queries.py).

Policies are organisation-wide (every sla holder sees every policy). A rule's priority_id must be an item
of the `task_priority` config list, at most one rule per priority (400 otherwise); `rules` on update
replaces every existing rule. company_id must name an existing company (400). Other areas (deals) are
reached through their `service`, imported where it is needed.
"""
from __future__ import annotations

from dataclasses import replace

from sqlalchemy import delete, func, select

from chalicelib.core.errors import BadRequest
from chalicelib.core.locks import lock_row
from chalicelib.core.query import Page, in_scope, record_page

from .models import SlaPolicy, SlaPolicyRule
from .queries import load_policy, policy_lookups, policy_records, policy_select, priority_items, visible, with_policy_lookups


def list_policies(ctx, query) -> Page:
    """The policies (filter company_id), by name (letter case aside, as companies and users): the page's records, then its total (when counted), rules and
    company names in one more statement (record_page with lookups)."""
    stmt = in_scope(policy_select(), visible(ctx.principal))
    if query.company_id:
        stmt = stmt.where(SlaPolicy.company_id == query.company_id)
    page, sets = record_page(ctx.db, stmt.order_by(func.lower(SlaPolicy.name), SlaPolicy.name, SlaPolicy.id), query,
                             lookups=lambda rows: policy_lookups(ctx.db, rows))
    return replace(page, items=with_policy_lookups(page.items, sets))


def _check_company(ctx, company_id: str | None) -> None:
    from chalicelib.areas.deals import service as deals_service

    deals_service.check_company(ctx.db, company_id)


def _check_rules(ctx, rules) -> None:
    details = []
    found = priority_items(ctx.db, [rule.priority_id for rule in rules])
    seen = set()
    for index, rule in enumerate(rules):
        if rule.priority_id not in found:
            details.append({"field": f"rules.{index}.priority_id", "message": "must be a task_priority item"})
        elif rule.priority_id in seen:
            details.append({"field": f"rules.{index}.priority_id", "message": "has a rule already"})
        seen.add(rule.priority_id)
    if details:
        raise BadRequest("Invalid SLA rules", details=details)


def _write_rules(ctx, policy_id: str, rules) -> None:
    ctx.db.execute(delete(SlaPolicyRule).where(SlaPolicyRule.policy_id == policy_id)
                   .execution_options(synchronize_session=False))
    ctx.db.add_all([SlaPolicyRule(policy_id=policy_id, priority_id=rule.priority_id,
                                  response_hours=rule.response_hours, resolution_hours=rule.resolution_hours)
                    for rule in rules])
    ctx.db.flush()


def policy_record(ctx, policy_id: str) -> dict:
    return policy_records(ctx.db, [ctx.db.get(SlaPolicy, policy_id)])[0]


def create_policy(ctx, *, data) -> dict:
    _check_company(ctx, data.company_id)
    _check_rules(ctx, data.rules)
    policy = SlaPolicy(name=data.name, description=data.description, company_id=data.company_id,
                       created_by=ctx.user_id)
    ctx.db.add(policy)
    ctx.db.flush()
    _write_rules(ctx, policy.id, data.rules)
    return policy_record(ctx, policy.id)


def update_policy(ctx, *, policy_id: str, data) -> dict:
    policy = load_policy(ctx, policy_id)
    # concurrent rule replacements do not interleave; a policy deleted meanwhile is a 404 (re-read under the lock)
    policy = lock_row(ctx.db, SlaPolicy, policy.id, missing="SLA policy")
    changes = data.changes()
    # a company sent back as stored is not checked again (session 25: a policy whose company was deleted since
    # could not be saved back; the column has no foreign key)
    if "company_id" in changes and changes["company_id"] != policy.company_id:
        _check_company(ctx, changes["company_id"])
    rules = changes.pop("rules", None)
    if rules is not None:
        _check_rules(ctx, data.rules)
    for key, value in changes.items():
        setattr(policy, key, value)
    ctx.db.flush()
    if rules is not None:
        _write_rules(ctx, policy.id, data.rules)
    ctx.db.expire_all()
    return policy_record(ctx, policy.id)


def delete_policy(ctx, *, policy_id: str) -> None:
    """Deletes the policy, its rules and the task assignments made under it (cascade)."""
    policy = load_policy(ctx, policy_id)
    ctx.db.delete(policy)
    ctx.db.flush()


# ---- for other areas (tasks, projects) ---------------------------------------------------------------

def assign_on_task_create(ctx, task, policy_id: str) -> bool:
    """Called by the tasks area when a task is created in a project with an `sla_policy_id`: give the task
    the policy's SLA from its creation time. A task without a priority, a policy without a rule for it, or
    a policy that no longer exists gets none (the task is still created). Answers whether it got one."""
    from .service_tasks import assign

    if not task.priority_id or ctx.db.get(SlaPolicy, policy_id) is None:
        return False
    rule = ctx.db.scalar(select(SlaPolicyRule.id).where(SlaPolicyRule.policy_id == policy_id,
                                                        SlaPolicyRule.priority_id == task.priority_id))
    if rule is None:
        return False
    assign(ctx, task, policy_id)
    return True


def policy_exists(db, policy_id: str) -> bool:
    """Whether a policy has this id (no scoping: policies are organisation-wide), for the projects area's
    check of `sla_policy_id`."""
    return db.scalar(select(SlaPolicy.id).where(SlaPolicy.id == policy_id)) is not None


def policy_summaries(db, policy_ids) -> dict[str, dict]:
    """`{policy_id: {name, response_hours, resolution_hours}}` for the projects detail (one query): the
    hours are those of the rule for the default task priority, else of the first rule by priority position;
    None when the policy has no rule."""
    from .queries import rules_by_policy

    ids = {policy_id for policy_id in policy_ids if policy_id}
    if not ids:
        return {}
    names = dict(db.execute(select(SlaPolicy.id, SlaPolicy.name).where(SlaPolicy.id.in_(ids))).all())
    rules = rules_by_policy(db, names)
    defaults = _default_priority_ids(db)
    found = {}
    for policy_id, name in names.items():
        policy_rules = rules.get(policy_id, [])
        rule = next((r for r in policy_rules if r["priority_id"] in defaults), policy_rules[0] if policy_rules else {})
        found[policy_id] = {"name": name, "response_hours": rule.get("response_hours"),
                            "resolution_hours": rule.get("resolution_hours")}
    return found


def _default_priority_ids(db) -> set[str]:
    from chalicelib.core.models import ConfigList, ConfigListItem

    from .queries import PRIORITY_LIST

    return set(db.scalars(select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
                          .where(ConfigList.key == PRIORITY_LIST, ConfigListItem.is_default.is_(True))))


def priority_uses(item_id: str) -> dict:
    """Scalar counts of what names task priority `item_id` here: the policies' rules (deleted with the item: a
    policy would lose its promise for that priority) and the tasks' service levels (their label and hours read
    through it). The config lists area refuses to delete a priority in use (session 25)."""
    from .models import TaskSla

    return {"service level rules": select(func.count()).select_from(SlaPolicyRule)
            .where(SlaPolicyRule.priority_id == item_id).scalar_subquery(),
            "task service levels": select(func.count()).select_from(TaskSla)
            .where(TaskSla.priority_id == item_id).scalar_subquery()}
