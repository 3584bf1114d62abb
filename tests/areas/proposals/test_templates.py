"""Proposal templates at /api/proposals/templates (tool proposals: view reads, update writes, manage deletes)."""
import json

import pytest

from tests.factories import make_user


@pytest.mark.smoke
def test_template_lifecycle(api, db, exec_user):
    content = json.dumps({"type": "doc", "content": [{"type": "p", "text": "Hello {{company}}"}]})
    made = api.post("/api/proposals/templates", as_=exec_user, json={
        "name": " Retainer ", "category": "retainer", "content_rich": content, "brand_config": '{"color": "#123"}',
        "variables_schema": '{"budget": {"default": "10k"}}', "speaker_notes": "[]"})
    assert made.status == 201, made
    tid = made.json["id"]
    api.post("/api/proposals/templates", as_=exec_user, json={"name": "Audit", "category": "audit"})
    listed = api.get("/api/proposals/templates", as_=exec_user).json
    assert [t["name"] for t in listed["templates"]] == ["Audit", "Retainer"] and "content_rich" not in listed["templates"][0]
    only = api.get("/api/proposals/templates?category=retainer", as_=exec_user).json["templates"]
    assert [t["id"] for t in only] == [tid]
    detail = api.get(f"/api/proposals/templates/{tid}", as_=exec_user).json["template"]
    assert detail["content_rich"] == content and detail["is_active"] == 1 and detail["name"] == "Retainer"
    assert api.put(f"/api/proposals/templates/{tid}", as_=exec_user, json={"description": "d"}).json == {"ok": True}
    assert api.get(f"/api/proposals/templates/{tid}", as_=exec_user).json["template"]["description"] == "d"
    assert api.delete(f"/api/proposals/templates/{tid}", as_=exec_user).json == {"ok": True}
    assert [t["name"] for t in api.get("/api/proposals/templates", as_=exec_user).json["templates"]] == ["Audit"]
    assert api.get(f"/api/proposals/templates/{tid}", as_=exec_user).json["template"]["is_active"] == 0
    assert api.get("/api/proposals/templates/nope", as_=exec_user).status == 404
    assert api.put("/api/proposals/templates/nope", as_=exec_user, json={"name": "x"}).status == 404


def test_template_validation_and_permissions(api, db, exec_user, employee):
    assert api.post("/api/proposals/templates", as_=exec_user, json={"description": "x"}).status == 400
    bad = api.post("/api/proposals/templates", as_=exec_user, json={"name": "T", "brand_config": "{nope"})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "brand_config"
    bad = api.post("/api/proposals/templates", as_=exec_user, json={"name": "T", "variables_schema": "3"})
    assert bad.status == 400
    made = api.post("/api/proposals/templates", as_=employee, json={"name": "Mine"})
    assert made.status == 201  # employees hold proposals:update
    assert api.delete(f"/api/proposals/templates/{made.json['id']}", as_=employee).status == 403
    outsider = make_user(db, access_level="employee")
    from tests.factories import grant
    grant(db, outsider, "proposals", "none")
    assert api.get("/api/proposals/templates", as_=outsider).status == 403


def test_template_list_costs_constant_statements(api, db, exec_user, count_queries):
    from chalicelib.areas.proposals.models import ProposalTemplate

    counts = []
    for n in (5, 95):
        db.add_all([ProposalTemplate(name=f"T{i}", is_active=True) for i in range(n)])
        db.flush()
        with count_queries() as counter:
            answer = api.get("/api/proposals/templates", as_=exec_user)
        assert answer.status == 200
        counts.append(counter.count)
    assert len(answer.json["templates"]) == 100 and counts[0] == counts[1], counts


@pytest.mark.parametrize("field", ["content_rich", "brand_config", "variables_schema", "speaker_notes"])
@pytest.mark.parametrize("depth", [900, 100_000])
def test_json_text_nested_too_deep_is_a_400(api, db, exec_user, field, depth):
    """JSON text is parsed to be checked: nesting past 64 levels (what a request body may hold) is a 400 naming the
    field. At 100,000 levels the parse overflowed (a 500); at 900 it passed and a proposal made from the template
    overflowed walking it (a 500 too)."""
    deep = "[" * depth + "]" * depth
    answer = api.post("/api/proposals/templates", as_=exec_user, json={"name": "Deep", field: deep})
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": field, "message": "nested deeper than 64 levels"}]
    made = api.post("/api/proposals/templates", as_=exec_user, json={"name": "Fine"})
    answer = api.put(f"/api/proposals/templates/{made.json['id']}", as_=exec_user, json={field: deep})
    assert answer.status == 400 and answer.json["details"][0]["field"] == field, answer


@pytest.mark.parametrize("escaped", ["\\udfff", "\\u0000"])
def test_json_text_holding_what_text_cannot_is_a_400(api, db, exec_user, escaped):
    """A JSON escape can spell a lone surrogate or NUL, which no text column stores: a 400 naming the field, not a
    template whose proposals then failed to save their page (a 500)."""
    content = '{"type": "doc", "content": [{"type": "p", "text": "Hi ' + escaped + ' {{company}}"}]}'
    answer = api.post("/api/proposals/templates", as_=exec_user, json={"name": "Odd", "content_rich": content})
    assert answer.status == 400, answer
    assert answer.json["details"][0]["field"] == "content_rich"
    fine = '{"type": "doc", "content": [{"type": "p", "text": "Hi \\ud83d\\ude00 {{company}}"}]}'  # a pair: one emoji
    made = api.post("/api/proposals/templates", as_=exec_user, json={"name": "Emoji", "content_rich": fine})
    assert made.status == 201, made
    proposal = api.post("/api/proposals", as_=exec_user, json={"title": "P", "template_id": made.json["id"],
                                                               "currency": "AUD"})
    assert proposal.status == 201, proposal
