"""Spec 2 calls a template's content_rich, brand_config, variables_schema and speaker_notes, and a proposal's
speaker_notes and brand_config, "JSON text"; the public viewer answers brand_config and the content to anyone with
the link. A non-empty value must be a JSON object or array (docs/decisions/proposals.md, session 22): a JSON
scalar (a string of markup, a number, true, null) is a 400 naming the field, on create and on update. An empty
string stays accepted (nothing to parse), as before."""
import json

import pytest

from .factories import create

TEMPLATE_FIELDS = ["content_rich", "brand_config", "variables_schema", "speaker_notes"]
PROPOSAL_FIELDS = ["speaker_notes", "brand_config"]
SCALARS = [json.dumps("<img src=x onerror=alert(document.cookie)>"), "3", "true", "null", ' "x" ', "-1e3"]
SHAPED = ['{"color": "#123"}', "[]", ' \n{"a": [1, 2]} ', json.dumps([{"name": "budget", "default": "10k"}])]


@pytest.mark.parametrize("field", TEMPLATE_FIELDS)
@pytest.mark.parametrize("text", SCALARS)
def test_a_template_json_scalar_is_a_400_naming_the_field(api, exec_user, field, text):
    answer = api.post("/api/proposals/templates", as_=exec_user, json={"name": "T", field: text})
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == [field], answer.json
    made = api.post("/api/proposals/templates", as_=exec_user, json={"name": "Fine"})
    tid = made.json["id"]
    answer = api.put(f"/api/proposals/templates/{tid}", as_=exec_user, json={field: text})
    assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == [field], answer
    assert api.get(f"/api/proposals/templates/{tid}", as_=exec_user).json["template"][field] is None


@pytest.mark.parametrize("field", PROPOSAL_FIELDS)
@pytest.mark.parametrize("text", SCALARS)
def test_a_proposal_json_scalar_is_a_400_naming_the_field(api, exec_user, field, text):
    answer = api.post("/api/proposals", as_=exec_user, json={"title": "P", "currency": "AUD", field: text})
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == [field], answer.json
    pid = create(api, exec_user)
    answer = api.put(f"/api/proposals/{pid}", as_=exec_user, json={field: text})
    assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == [field], answer
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"][field] is None


@pytest.mark.parametrize("text", SHAPED + [""])
def test_objects_arrays_and_empty_text_are_kept(api, exec_user, text):
    made = api.post("/api/proposals/templates", as_=exec_user, json={"name": "T", **{f: text for f in TEMPLATE_FIELDS}})
    assert made.status == 201, made
    detail = api.get(f"/api/proposals/templates/{made.json['id']}", as_=exec_user).json["template"]
    assert [detail[f] for f in TEMPLATE_FIELDS] == [text] * 4
    pid = create(api, exec_user, **{f: text for f in PROPOSAL_FIELDS})
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={f: text for f in PROPOSAL_FIELDS}).status == 200
    proposal = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert [proposal[f] for f in PROPOSAL_FIELDS] == [text] * 2
