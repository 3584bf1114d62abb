"""The SLA area's leaf module: the scope clause `visible`, the load-or-404 helper `load_policy`, the record
builders and the read queries. service.py imports it, never the reverse."""
from __future__ import annotations

from sqlalchemy import func, select

from chalicelib.core.models import ConfigList, ConfigListItem
from chalicelib.core.lookup import ids_read
from chalicelib.core.query import Read, grouped, record_rows, record_sets, visible_row
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


def _rules_statement(policy_in):
    seq = func.row_number().over(order_by=(ConfigListItem.position, ConfigListItem.label, SlaPolicyRule.id))
    return (select(SlaPolicyRule.id, SlaPolicyRule.policy_id, SlaPolicyRule.priority_id, SlaPolicyRule.response_hours,
                   SlaPolicyRule.resolution_hours, ConfigListItem.label.label("priority_label"),
                   ConfigListItem.value.label("priority_value"), ConfigListItem.color.label("priority_color"),
                   ConfigListItem.position.label("priority_position"), seq.label("seq"))
            .join(ConfigListItem, ConfigListItem.id == SlaPolicyRule.priority_id)
            .where(policy_in(SlaPolicyRule.policy_id)))


def rules_select(db, policy_ids) -> Read | None:
    """The read of the rules of these policies with their priority's label, value, colour and position (built
    once per process), None without ids: for one record_sets round trip with the list's other lookups."""
    return ids_read(db, _rules_statement, "sla_rule_policy_ids", policy_ids)


def rules_by_policy(db, policy_ids) -> dict[str, list[dict]]:
    """`{policy_id: [rule record]}` ordered by the priority's position (one query for all policies)."""
    read = rules_select(db, list(policy_ids))
    return {} if read is None else grouped(record_rows(db, read), "policy_id")


def policy_lookups(db, records) -> dict:
    """The reads that complete policy records (company names, rules), for one record_sets round trip."""
    from chalicelib.areas.deals import service as deals_service

    return {"companies": deals_service.company_names_select(db, [r["company_id"] for r in records]),
            "rules": rules_select(db, [r["id"] for r in records])}


def with_policy_lookups(records: list[dict], sets: dict) -> list[dict]:
    """The records with company_name and rules from `policy_lookups`'s answers (`sets`)."""
    companies = {row["id"]: row["name"] for row in sets["companies"]}
    rules = grouped(sets["rules"], "policy_id")
    for record in records:
        record["company_name"] = companies.get(record["company_id"])
        record["rules"] = rules.get(record["id"], [])
    return records


def policy_select():
    """The base statement of the policy reads: the policy's own columns (records through record_rows)."""
    return select(*(getattr(SlaPolicy, name) for name in POLICY_FIELDS))


def policy_records(db, policies) -> list[dict]:
    """Policy records with company_name and rules: one statement for the whole list (record_sets; its caller names
    one policy). `policies`: SlaPolicy rows or records read from policy_select()."""
    records = [p if isinstance(p, dict) else row_dict(p, POLICY_FIELDS) for p in policies]
    return with_policy_lookups(records, record_sets(db, **policy_lookups(db, records)))
