"""Proposal templates: list (active, filter category), create, get, update, soft delete (is_active 0;
proposals made from a template keep their content). Templates are shared by every proposals:view holder."""
from __future__ import annotations

import json

from sqlalchemy import func

from chalicelib.core import history
from chalicelib.core.errors import BadRequest
from chalicelib.core.locks import lock_row
from chalicelib.core.query import Page, in_scope, record_page

from .models import ProposalTemplate
from .queries import TEMPLATE_LIST_FLAGS, load_template, template_list_select, template_record, visible_templates

ENTITY = "proposal_template"
JSON_FIELDS = ("content_rich", "brand_config", "variables_schema", "speaker_notes")


def check_json(values: dict, fields=JSON_FIELDS) -> None:
    """The JSON text fields must hold JSON (400 with the field otherwise; that it is an object or an array the input
    models' `schemas._json_container` checked before: a text starting with `{` or `[` that parses is one). The value
    is held to a request body's rules (core.http.check_request_values): nested at most 64 levels (what walks it
    later cannot overflow), no NUL or lone surrogate spelled as an escape (no text column stores them)."""
    from chalicelib.core.http import check_request_values

    details = []
    for field in fields:
        text = values.get(field)
        if text is None or text == "":
            continue
        try:
            parsed = json.loads(text)
        except RecursionError:
            details.append({"field": field, "message": "nested deeper than 64 levels"})
            continue
        except ValueError:
            details.append({"field": field, "message": "must be JSON text"})
            continue
        try:
            check_request_values(parsed, field)
        except BadRequest as exc:
            details.append({"field": field, "message": (exc.details or [{}])[0].get("message", exc.message)})
    if details:
        raise BadRequest("Invalid JSON text", details=details)


def list_templates(ctx, query) -> Page:
    """The active templates by name (letter case aside, as companies and users): the list's columns only (no content or configuration, which the detail
    answers), as records."""
    stmt = in_scope(template_list_select(), visible_templates(ctx.principal)).where(
        ProposalTemplate.is_active.is_(True))
    if query.category:  # letter case aside (session 32): a category is a free label kept as written
        stmt = stmt.where(func.lower(ProposalTemplate.category) == func.lower(query.category))
    stmt = stmt.order_by(func.lower(ProposalTemplate.name), ProposalTemplate.name, ProposalTemplate.id)
    return record_page(ctx.db, stmt, query, TEMPLATE_LIST_FLAGS)


def create_template(ctx, *, data) -> str:
    values = data.model_dump()
    check_json(values)
    template = ProposalTemplate(**values, created_by=ctx.user_id, is_active=True)
    ctx.db.add(template)
    ctx.db.flush()
    history.record(ctx.db, entity_type=ENTITY, entity_id=template.id, action="created", actor_id=ctx.user_id,
                   changes={"name": template.name})
    return template.id


def get_template(ctx, *, template_id: str) -> dict:
    return template_record(load_template(ctx, template_id), detail=True)


def _locked(ctx, template_id: str) -> ProposalTemplate:
    """The visible template, locked and re-read: concurrent changes of one template take turns, each diffing (and
    a delete checking is_active) from what the one before it left. 404 when it is missing."""
    load_template(ctx, template_id)
    template = lock_row(ctx.db, ProposalTemplate, template_id, missing="Proposal template")
    return template


def update_template(ctx, *, template_id: str, data) -> None:
    template = _locked(ctx, template_id)
    changes = data.changes()
    check_json(changes)
    before = {key: getattr(template, key) for key in changes}
    for key, value in changes.items():
        setattr(template, key, value)
    diff = history.diff(before, changes)
    if diff:
        history.record(ctx.db, entity_type=ENTITY, entity_id=template.id, action="updated", actor_id=ctx.user_id,
                       changes={k: v for k, v in diff.items() if k not in ("content_rich",)} or {"content_rich": "changed"})
    ctx.db.flush()


def delete_template(ctx, *, template_id: str) -> None:
    template = _locked(ctx, template_id)
    if template.is_active:
        template.is_active = False
        history.record(ctx.db, entity_type=ENTITY, entity_id=template.id, action="deleted", actor_id=ctx.user_id,
                       changes={"is_active": {"from": 1, "to": 0}})
    ctx.db.flush()
