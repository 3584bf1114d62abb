"""The proposal and template lists answer the records without their content and configuration, which the details
answer (spec 2: "List proposals -> { proposals }", "Get template -> template with content and configuration";
docs/decisions/proposals.md, "Lists"). Those are JSON text of up to 200,000 characters each (a template's rich
content up to 2,000,000): 500 proposals carrying 13 KB of speaker notes each made an 8.6 MB list, past the 6 MB a
Lambda answer carries. The lists' SQL selects none of them (not read, then dropped)."""
import json

from .factories import create

NOTES = json.dumps(["n" * 20_000])
BRAND = json.dumps({"colour": "#123456", "pad": "b" * 20_000})
SCHEMA = json.dumps({"budget": {"default": "v" * 20_000}})
RICH = json.dumps({"type": "doc", "content": [{"type": "p", "text": "r" * 50_000}]})

PROPOSAL_BODIES = ("speaker_notes", "brand_config")
TEMPLATE_BODIES = ("content_rich", "brand_config", "variables_schema", "speaker_notes")


def _reads(counter, table: str) -> list[str]:
    return [s for s in counter.statements if s.lstrip().upper().startswith("SELECT") and f"FROM {table} " in s + " "]


def test_proposal_list_leaves_out_notes_and_brand(api, db, exec_user, count_queries):
    ids = [create(api, exec_user, title=f"P{n}", speaker_notes=NOTES, brand_config=BRAND) for n in range(3)]
    with count_queries() as counter:
        response = api.get("/api/proposals", as_=exec_user)
    assert response.status == 200, response
    listed = [p for p in response.json["proposals"] if p["id"] in ids]
    assert len(listed) == 3
    assert all(not set(PROPOSAL_BODIES) & set(p) for p in listed), listed[0].keys()
    assert {p["title"] for p in listed} == {"P0", "P1", "P2"} and all(p["owner_name"] == exec_user.name for p in listed)
    reads = _reads(counter, "proposals")
    assert reads, counter.statements
    # every listed proposal's notes and brand configuration were read for a list that answers neither
    assert not [s for s in reads if any(f"proposals.{field}" in s for field in PROPOSAL_BODIES)], reads

    detail = api.get(f"/api/proposals/{ids[0]}", as_=exec_user).json["proposal"]
    assert detail["speaker_notes"] == NOTES and detail["brand_config"] == BRAND
    row = next(p for p in listed if p["id"] == ids[0])
    assert row == {key: detail[key] for key in row}  # the list's fields are the detail's


def test_template_list_leaves_out_content_and_configuration(api, db, exec_user, count_queries):
    made = api.post("/api/proposals/templates", as_=exec_user, json={
        "name": "Retainer", "category": "retainer", "description": "Monthly", "content_rich": RICH,
        "brand_config": BRAND, "variables_schema": SCHEMA, "speaker_notes": NOTES})
    assert made.status == 201, made
    tid = made.json["id"]
    with count_queries() as counter:
        response = api.get("/api/proposals/templates", as_=exec_user)
    assert response.status == 200, response
    listed = next(t for t in response.json["templates"] if t["id"] == tid)
    assert not set(TEMPLATE_BODIES) & set(listed), listed.keys()
    assert (listed["name"], listed["category"], listed["description"], listed["is_active"]) == (
        "Retainer", "retainer", "Monthly", 1)
    reads = _reads(counter, "proposal_templates")
    assert reads, counter.statements
    assert not [s for s in reads if any(f"proposal_templates.{field}" in s for field in TEMPLATE_BODIES)], reads

    detail = api.get(f"/api/proposals/templates/{tid}", as_=exec_user).json["template"]
    assert (detail["content_rich"], detail["brand_config"], detail["variables_schema"], detail["speaker_notes"]) == (
        RICH, BRAND, SCHEMA, NOTES)
    assert listed == {key: detail[key] for key in listed}
