"""Session 29 (another area's record, seen with that area's permission): docs/decisions/pages.md says the page that
holds a proposal's content "is seen only by who sees the proposal ... For anyone else it answers 404 on every page
route ... and is left out of the list and search", and that a page linked to "a proposal the caller may not see" is
a 400 on `entity_id`. Seeing a proposal is the `proposals` tool at view and the proposal's row scope; the pages area
asked the row scope alone (`proposals_service.visible_ids`, `load_proposal`): a head whose `proposals` permission is
none (an override; a head's scope holds every proposal), to whom every proposal route answers 403, read, searched,
listed and edited a proposal's content page and linked new pages to any proposal, learning which ids exist."""
from tests.areas.proposals.factories import create
from tests.factories import grant, make_user


def test_a_proposals_page_is_not_seen_without_proposals_view(api, db):
    owner = make_user(db, access_level="employee", name="Owner")
    head = make_user(db, access_level="head", name="Head")
    pid = create(api, owner, title="Secret pitch")
    page_id = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["page_id"]
    assert api.patch(f"/api/pages/{page_id}", as_=owner, json={"content": "Our price is low"}).status == 200
    grant(db, head, "proposals", "none")  # an override: this head may not view proposals
    assert api.get(f"/api/proposals/{pid}", as_=head).status == 403
    page = f"/api/pages/{page_id}"
    assert api.get(page, as_=head).status == 404
    assert api.get(f"/api/pages?entity_type=proposal&entity_id={pid}", as_=head).json["pages"] == []
    assert api.get("/api/pages?search=price%20is%20low", as_=head).json["pages"] == []
    assert api.patch(page, as_=head, json={"content": "changed"}).status == 404
    assert api.get(f"{page}/discussions", as_=head).status == 404
    assert api.get(f"{page}/versions", as_=head).status == 404
    assert api.get(page, as_=owner).json["page"]["content"] == "Our price is low"
    # with proposals:view the same head sees the page, as every head does
    grant(db, head, "proposals", "view")
    assert api.get(page, as_=head).json["page"]["content"] == "Our price is low"


def test_a_page_cannot_be_linked_to_a_proposal_without_proposals_view(api, db):
    from sqlalchemy import func, select

    from chalicelib.areas.pages.models import Page

    owner = make_user(db, access_level="employee", name="Owner")
    head = make_user(db, access_level="head", name="Head")
    pid = create(api, owner, title="Secret pitch")
    grant(db, head, "proposals", "none")
    body = {"title": "Notes", "entity_type": "proposal", "entity_id": pid}
    before = db.scalar(select(func.count()).select_from(Page))
    refused = api.post("/api/pages", as_=head, json=body)
    assert refused.status == 400, refused
    assert refused.json["details"][0]["field"] == "entity_id"
    assert db.scalar(select(func.count()).select_from(Page)) == before
    grant(db, head, "proposals", "view")
    assert api.post("/api/pages", as_=head, json=body).status == 201


def test_a_page_cannot_be_linked_to_a_project_or_company_without_that_tool(api, db):
    """A page linked to a company or to one of its projects and published is shown in that client's portal
    (pages.portal_pages). Linking it is naming another area's record: the project needs `projects:view`, the company
    `deals:view` (a 400 on `entity_id` otherwise, nothing written), as a proposal needs `proposals:view`. A head whose
    projects or deals permission is none published pages into any client's portal."""
    from sqlalchemy import func, select

    from chalicelib.areas.pages.models import Page
    from tests.areas.deals.factories import make_company
    from tests.areas.projects.factories import make_project

    head = make_user(db, access_level="head", name="Head")
    company = make_company(db, name="Acme", status="client")
    project = make_project(db, company_id=company.id)
    for tool, entity_type, entity_id in (("projects", "project", project.id), ("deals", "company", company.id)):
        grant(db, head, tool, "none")  # an override: this head may not view the tool
        body = {"title": "Welcome", "entity_type": entity_type, "entity_id": entity_id}
        before = db.scalar(select(func.count()).select_from(Page))
        refused = api.post("/api/pages", as_=head, json=body)
        assert refused.status == 400, (tool, refused)
        assert refused.json["details"][0]["field"] == "entity_id"
        assert db.scalar(select(func.count()).select_from(Page)) == before
        grant(db, head, tool, "view")
        assert api.post("/api/pages", as_=head, json=body).status == 201


def test_a_page_links_only_to_an_existing_company_and_a_project_the_caller_sees(api, db):
    """Session 29: a project or company link is published in that client's portal; the id must name a record the
    caller can see (a made-up id, or another team's project, was linked: 201)."""
    from tests.areas.deals.factories import make_company
    from tests.areas.projects.factories import make_project
    from tests.factories import make_user

    employee = make_user(db, access_level="employee")
    theirs = make_project(db, owner_id=make_user(db).id)
    mine = make_project(db, owner_id=employee.id)
    company = make_company(db)
    for link in ({"entity_type": "company", "entity_id": "no-such-company"},
                 {"entity_type": "project", "entity_id": "no-such-project"},
                 {"entity_type": "project", "entity_id": theirs.id}):
        answer = api.post("/api/pages", json={"title": "Linked", **link}, as_=employee)
        assert answer.status == 400 and answer.json["details"][0]["field"] == "entity_id", (link, answer)
    for link in ({"entity_type": "company", "entity_id": company.id}, {"entity_type": "project", "entity_id": mine.id},
                 {"entity_type": "meeting", "entity_id": "any-label"}):
        assert api.post("/api/pages", json={"title": "Linked", **link}, as_=employee).status == 201, link
