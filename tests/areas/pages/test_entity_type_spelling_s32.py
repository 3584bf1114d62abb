"""A page's entity_type written in another spelling (session 32, 2026-11-29; "labels" audit): `project`, `company`
and `proposal` are compared exactly (the link's checks, the proposal page's scope, the client portal's pages, the
entity's page list), so "Project" or " proposal" skipped the link's checks (a page linked to another team's project,
or to a proposal the caller may not see, 201) and the page was never the record's: not in the portal, not in its
list. The entity_type is now stored trimmed and in lower case (a record kind is a code); the list filter finds
both spellings. docs/decisions/pages.md, Entity link."""
import pytest

from tests.areas.projects.factories import make_project
from tests.areas.proposals.factories import create
from tests.factories import grant, make_user


@pytest.mark.parametrize("typed", ["Project", " project", "PROJECT "])
def test_a_project_link_in_another_case_is_checked(api, db, typed):
    employee = make_user(db, access_level="employee")
    theirs = make_project(db, owner_id=make_user(db).id)
    refused = api.post("/api/pages", json={"title": "Linked", "entity_type": typed, "entity_id": theirs.id},
                       as_=employee)
    assert refused.status == 400, refused.json
    assert refused.json["details"][0]["field"] == "entity_id"


def test_a_proposal_link_in_another_case_is_the_proposals_page(api, db):
    owner = make_user(db, access_level="employee", name="Owner")
    head = make_user(db, access_level="head", name="Head")
    pid = create(api, owner, title="Secret pitch")
    grant(db, head, "proposals", "none")
    refused = api.post("/api/pages", as_=head, json={"title": "Notes", "entity_type": "Proposal", "entity_id": pid})
    assert refused.status == 400, refused.json
    assert refused.json["details"][0]["field"] == "entity_id"


def test_a_page_linked_as_Project_is_listed_with_the_project(api, db):
    employee = make_user(db, access_level="employee")
    mine = make_project(db, owner_id=employee.id)
    made = api.post("/api/pages", json={"title": "Linked", "entity_type": "Project", "entity_id": mine.id},
                    as_=employee)
    assert made.status == 201, made.json
    assert made.json["page"]["entity_type"] == "project"
    for spelled in ("project", "Project"):
        listed = api.get(f"/api/pages?entity_type={spelled}&entity_id={mine.id}", as_=employee).json["pages"]
        assert [p["id"] for p in listed] == [made.json["page"]["id"]], spelled
    # another kind is a label, kept as a code too
    other = api.post("/api/pages", json={"title": "Minutes", "entity_type": "Meeting", "entity_id": "m-1"},
                     as_=employee)
    assert other.status == 201 and other.json["page"]["entity_type"] == "meeting"
