"""The SLA area's leaf module: the scope clause `visible`, the load-or-404 helper `load_policy`, the record
builders and the read queries. service.py imports it, never the reverse."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.models import ConfigList, ConfigListItem
from chalicelib.core.query import visible_row
from chalicelib.core.serialize import row_dict

from .models import SlaPolicy, SlaPolicyRule

POLICY_FIELDS = ("id", "name", "description", "company_id", "created_by", "created_at", "updated_at")
PRIORITY_LIST = "task_priority"


def visible(principal):
    """WHERE clause of the policies the principal may see (None: all): service levels are organisation-wide,
    every holder of sla:view sees every policy (docs/decisions/sla.md)."""
    return None


def load_policy(ctx, policy_id: str) -> SlaPolicy:
    """The policy if it exists; 404 otherwise (one query)."""
    return visible_row(ctx.db, SlaPolicy, policy_id, visible(ctx.principal), "SLA policy")


def priority_items(db, item_ids) -> dict[str, ConfigListItem]:
    """`{id: item}` of the ids that are task_priority items (one query)."""
    ids = {item_id for item_id in item_ids if item_id}
    if not ids:
        return {}
    stmt = (select(ConfigListItem).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
            .where(ConfigList.key == PRIORITY_LIST, ConfigListItem.id.in_(ids)))
    return {item.id: item for item in db.scalars(stmt)}


def rules_by_policy(db, policy_ids) -> dict[str, list[dict]]:
    """`{policy_id: [rule record]}` ordered by the priority's position (one query for all policies)."""
    ids = list({policy_id for policy_id in policy_ids})
    if not ids:
        return {}
    stmt = (select(SlaPolicyRule, ConfigListItem)
            .join(ConfigListItem, ConfigListItem.id == SlaPolicyRule.priority_id)
            .where(SlaPolicyRule.policy_id.in_(ids))
            .order_by(ConfigListItem.position, ConfigListItem.label, SlaPolicyRule.id))
    found: dict[str, list[dict]] = {}
    for rule, item in db.execute(stmt):
        found.setdefault(rule.policy_id, []).append({
            "id": rule.id, "priority_id": rule.priority_id, "response_hours": rule.response_hours,
            "resolution_hours": rule.resolution_hours, "priority_label": item.label, "priority_value": item.value,
            "priority_color": item.color, "priority_position": item.position})
    return found


def policy_records(db, policies) -> list[dict]:
    """Policy records with company_name and rules: two statements for the whole list, none when empty."""
    from chalicelib.areas.deals import service as deals_service

    policies = list(policies)
    if not policies:
        return []
    companies = deals_service.company_names(db, [p.company_id for p in policies])
    rules = rules_by_policy(db, [p.id for p in policies])
    return [{**row_dict(p, POLICY_FIELDS), "company_name": companies.get(p.company_id), "rules": rules.get(p.id, [])}
            for p in policies]
