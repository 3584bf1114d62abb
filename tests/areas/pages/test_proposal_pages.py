"""A proposal's content is a page (entity_type `proposal`): it is seen, listed and edited only by who sees the
proposal (the proposals area's scope, docs/decisions/proposals.md). Holders of pages:view could read, search and
edit the page of a proposal whose own routes answer them 404."""
from tests.areas.proposals.factories import create
from tests.factories import make_squad, make_user


def test_a_proposals_page_is_seen_only_with_the_proposal(api, db):
    owner = make_user(db, access_level="employee", name="Owner")
    colleague = make_user(db, access_level="employee", name="Colleague")
    outside_manager = make_user(db, access_level="manager", name="Outside")
    make_squad(db, manager_id=outside_manager.id)
    executive = make_user(db, access_level="executive", name="Exec")
    pid = create(api, owner, title="Secret pitch")
    page_id = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["page_id"]
    assert api.patch(f"/api/pages/{page_id}", as_=owner, json={"content": "Our price is low"}).status == 200
    page = f"/api/pages/{page_id}"
    listed = f"/api/pages?entity_type=proposal&entity_id={pid}"
    for caller in (colleague, outside_manager):
        assert api.get(f"/api/proposals/{pid}", as_=caller).status == 404
        assert api.get(page, as_=caller).status == 404
        assert api.get(listed, as_=caller).json["pages"] == []
        assert api.get("/api/pages?search=price%20is%20low", as_=caller).json["pages"] == []
        assert api.patch(page, as_=caller, json={"content": "changed"}).status == 404
        assert api.get(f"{page}/discussions", as_=caller).status == 404
        assert api.post(f"{page}/discussions", as_=caller, json={"comment": "hi"}).status == 404
        assert api.get(f"{page}/versions", as_=caller).status == 404
    for caller in (owner, executive):
        assert api.get(page, as_=caller).json["page"]["content"] == "Our price is low"
        assert [p["id"] for p in api.get(listed, as_=caller).json["pages"]] == [page_id]
        assert [p["id"] for p in api.get("/api/pages?search=price%20is%20low", as_=caller).json["pages"]] == [page_id]
        assert api.get(f"{page}/discussions", as_=caller).status == 200
    # a standalone page is every pages:view holder's, as before
    standalone = api.post("/api/pages", as_=owner, json={"title": "Handbook"}).json["page"]["id"]
    assert api.get(f"/api/pages/{standalone}", as_=colleague).status == 200


def test_a_page_linked_to_a_proposal_the_caller_may_not_see_is_a_400(api, db):
    """A page linked to a proposal is seen only with the proposal: linking one the caller may not see answered 404
    "Page not found" (the page was made, then its own read was scoped) and kept nothing; it is a 400 on entity_id,
    as a missing proposal is named (pages audit). The proposal's owner links their own."""
    from sqlalchemy import func, select

    from chalicelib.areas.pages.models import Page

    owner = make_user(db, access_level="employee", name="Owner")
    colleague = make_user(db, access_level="employee", name="Colleague")
    pid = create(api, owner, title="Secret pitch")
    body = {"title": "Notes", "entity_type": "proposal", "entity_id": pid}
    before = db.scalar(select(func.count()).select_from(Page))
    refused = api.post("/api/pages", as_=colleague, json=body)
    assert refused.status == 400 and refused.json["details"][0]["field"] == "entity_id", refused
    assert db.scalar(select(func.count()).select_from(Page)) == before
    assert api.post("/api/pages", as_=owner, json=body).status == 201


def test_a_proposals_page_never_has_a_parent(api, db):
    """A proposal's page is kept out of the page tree, as parent and as child: moving it under a standalone page
    answered 200 and every pages:view holder saw that page's children_count include a page that answered them 404;
    creating one with a parent answered 201. Both are a 400 on parent_id, nothing written; moving to the root stays."""
    from sqlalchemy import func, select

    from chalicelib.areas.pages.models import Page

    owner = make_user(db, access_level="employee", name="Owner")
    colleague = make_user(db, access_level="employee", name="Colleague")
    pid = create(api, owner, title="Secret pitch")
    page_id = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["page_id"]
    handbook = api.post("/api/pages", as_=owner, json={"title": "Handbook"}).json["page"]["id"]
    moved = api.patch(f"/api/pages/{page_id}", as_=owner, json={"parent_id": handbook, "title": "Moved"})
    assert moved.status == 400 and moved.json["details"][0]["field"] == "parent_id", moved
    page = api.get(f"/api/pages/{page_id}", as_=owner).json["page"]
    assert (page["parent_id"], page["title"]) == (None, "Secret pitch")
    seen = [p for p in api.get("/api/pages", as_=colleague).json["pages"] if p["id"] == handbook]
    assert seen[0]["children_count"] == 0
    assert api.patch(f"/api/pages/{page_id}", as_=owner, json={"parent_id": "", "title": "Pitch"}).status == 200
    before = db.scalar(select(func.count()).select_from(Page))
    made = api.post("/api/pages", as_=owner, json={"title": "Pricing", "entity_type": "proposal", "entity_id": pid,
                                                   "parent_id": handbook})
    assert made.status == 400 and made.json["details"][0]["field"] == "parent_id", made
    assert db.scalar(select(func.count()).select_from(Page)) == before
    assert api.post("/api/pages", as_=owner, json={"title": "Sub", "parent_id": handbook}).status == 201


def test_a_page_linked_to_no_existing_proposal_is_a_400_also_for_an_executive(api, db):
    """An executive sees every proposal, so the link went unchecked: a page linked to a proposal that does not exist
    answered 201. It is the 400 on entity_id that a proposal hidden from the caller gets, nothing written."""
    import uuid

    from sqlalchemy import func, select

    from chalicelib.areas.pages.models import Page

    owner = make_user(db, access_level="employee", name="Owner")
    executive = make_user(db, access_level="executive", name="Exec")
    pid = create(api, owner, title="Secret pitch")
    before = db.scalar(select(func.count()).select_from(Page))
    refused = api.post("/api/pages", as_=executive,
                       json={"title": "Notes", "entity_type": "proposal", "entity_id": str(uuid.uuid4())})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "entity_id", refused
    assert db.scalar(select(func.count()).select_from(Page)) == before
    made = api.post("/api/pages", as_=executive, json={"title": "Notes", "entity_type": "proposal", "entity_id": pid})
    assert made.status == 201, made
