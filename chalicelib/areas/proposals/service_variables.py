"""The template variables of a new proposal: their values (company, contact, deal, owner, valid_until, today,
then the template's defaults and the caller's `variables`), resolved into the template's rich content, and the
plain text of that content for the proposal's page. service.py's create uses them.
"""
from __future__ import annotations

import json
from datetime import date

from sqlalchemy import select

from chalicelib.core.models import User
from chalicelib.core.timeutil import org_today

from .models import ProposalTemplate

VARIABLES = ("company", "contact", "deal", "owner", "valid_until", "today")


def _variable_values(ctx, values: dict, owner_id: str, template: ProposalTemplate | None, extra: dict) -> dict:
    """The values of the template variables: company, contact, deal, owner, valid_until, today (the
    organisation's date), then the defaults of the template's variables_schema and the caller's `variables`."""
    from chalicelib.areas.deals import service as deals_service

    resolved: dict[str, str] = {}
    if template is not None and template.variables_schema:
        schema = json.loads(template.variables_schema)
        entries = schema.items() if isinstance(schema, dict) else (
            (entry.get("name") or entry.get("key"), entry) for entry in schema if isinstance(entry, dict))
        for name, spec in entries:
            if name and isinstance(spec, dict) and spec.get("default") is not None:
                resolved[str(name)] = str(spec["default"])
    company = deals_service.company_names(ctx.db, [values.get("company_id")]).get(values.get("company_id"))
    contact = deals_service.contact_names(ctx.db, [values.get("contact_id")]).get(values.get("contact_id"))
    deal = deals_service.deal_facts(ctx.db, values["deal_id"]) if values.get("deal_id") else None
    owner = ctx.db.scalar(select(User.name).where(User.id == owner_id)) if owner_id else None
    valid_until: date | None = values.get("valid_until")
    resolved.update({
        "company": company or "", "contact": " ".join(p for p in (contact or ()) if p), "deal": (deal or {}).get("title") or "",
        "owner": owner or "", "valid_until": valid_until.isoformat() if valid_until else "",
        "today": org_today().isoformat()})
    resolved.update(extra or {})
    return resolved


def _fill(text: str, values: dict) -> str:
    for name, value in values.items():
        for pattern in ("{{" + name + "}}", "{{ " + name + " }}"):
            text = text.replace(pattern, value)
    return text


def resolve_variables(content_rich: str | None, values: dict) -> str | None:
    """`{{name}}` placeholders replaced in every string of the rich content's JSON (the JSON stays valid);
    content that is not JSON is treated as text. Unknown placeholders stay as they are."""
    if not content_rich:
        return content_rich
    try:
        document = json.loads(content_rich)
    except ValueError:
        return _fill(content_rich, values)

    def walk(node):
        if isinstance(node, str):
            return _fill(node, values)
        if isinstance(node, list):
            return [walk(child) for child in node]
        if isinstance(node, dict):
            return {key: walk(child) for key, child in node.items()}
        return node

    return json.dumps(walk(document))


def plain_text(content_rich: str | None) -> str:
    """The text of rich content (every `text` value, in order), for the page's searchable content."""
    if not content_rich:
        return ""
    try:
        document = json.loads(content_rich)
    except ValueError:
        return content_rich
    parts: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                parts.append(node["text"])
            for child in node.values():
                if isinstance(child, (list, dict)):
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(document)
    return " ".join(parts)
