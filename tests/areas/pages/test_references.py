"""A page's parent (the deletes, archives and references audit): it must be a page the caller can see, and a
proposal's content page holds no sub-pages."""
from tests.factories import make_user


def _proposal_page(api, owner) -> str:
    response = api.post("/api/proposals", json={"title": "Offer"}, as_=owner)
    assert response.status == 201, response
    return response.json["page_id"]


def test_a_hidden_proposal_page_is_no_parent_and_answers_like_a_missing_one(api, db, exec_user):
    outsider = make_user(db, access_level="employee")  # pages:update, but not one who sees the proposal
    page_id = _proposal_page(api, exec_user)
    assert api.get(f"/api/pages/{page_id}", as_=outsider).status == 404
    hidden = api.post("/api/pages", json={"title": "Mine", "parent_id": page_id}, as_=outsider)
    missing = api.post("/api/pages", json={"title": "Mine", "parent_id": "0" * 36}, as_=outsider)
    assert hidden.status == missing.status == 400, (hidden, missing)
    assert hidden.json == missing.json
    own = api.post("/api/pages", json={"title": "Mine"}, as_=outsider).json["page"]
    moved = api.patch(f"/api/pages/{own['id']}", json={"parent_id": page_id}, as_=outsider)
    assert moved.status == 400 and moved.json == missing.json
    assert api.get(f"/api/pages/{own['id']}", as_=outsider).json["page"]["parent_id"] is None


def test_a_proposal_page_holds_no_sub_pages(api, db, exec_user):
    page_id = _proposal_page(api, exec_user)
    response = api.post("/api/pages", json={"title": "Under the offer", "parent_id": page_id}, as_=exec_user)
    assert response.status == 400, response
    assert response.json["details"] == [{"field": "parent_id", "message": "is a proposal's content page"}]
    parent = api.post("/api/pages", json={"title": "Parent"}, as_=exec_user).json["page"]
    child = api.post("/api/pages", json={"title": "Child", "parent_id": parent["id"]}, as_=exec_user)
    assert child.status == 201 and child.json["page"]["parent_id"] == parent["id"]
