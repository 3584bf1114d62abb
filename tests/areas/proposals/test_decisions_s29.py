"""Session 29, audit "what the decisions documents say versus what the code does" (docs/decisions/proposals.md).

Scope: "A user listed as an approver also sees the proposals they are asked to approve (they cannot approve what they
cannot read)". Seeing is reading and deciding; the code let such an approver change the proposal as its owner would:
re-list the approvers (drop the other one, then approve alone), reprice it, share it publicly, submit it, mark it
sent. A write now needs the owner's scope (`queries.changeable`); the approver still reads, decides and duplicates.
"""
from tests.areas.proposals.factories import create, price
from tests.factories import make_user


def _in_review_with_two_approvers(api, db):
    owner = make_user(db, access_level="employee")
    first, second = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, owner, approver_ids=[first.id, second.id])
    price(api, owner, pid)
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    return owner, first, second, pid


def test_a_listed_approver_may_not_drop_the_other_approver_and_approve_alone(api, db):
    owner, first, second, pid = _in_review_with_two_approvers(api, db)
    dropped = api.put(f"/api/proposals/{pid}", as_=first, json={"approver_ids": [first.id]})
    assert dropped.status == 403, dropped
    assert api.post(f"/api/proposals/{pid}/approve", as_=first, json={}).status == 200
    detail = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]
    assert detail["status"] == "review" and sorted(detail["approver_ids"]) == sorted([first.id, second.id])


def test_a_listed_approver_reads_and_decides_but_does_not_change_the_proposal(api, db):
    owner, first, second, pid = _in_review_with_two_approvers(api, db)
    assert api.get(f"/api/proposals/{pid}", as_=first).status == 200
    assert api.get(f"/api/proposals/{pid}/pricing", as_=first).status == 200
    for method, path, body in (
            ("put", "", {"title": "Renamed by the approver"}),
            ("put", "/pricing", {"sections": [{"title": "Cheap", "items": [{"description": "All", "unit_price": 1}]}]}),
            ("put", "/share", {"share_enabled": True}),
    ):
        answer = getattr(api, method)(f"/api/proposals/{pid}{path}", as_=first, json=body)
        assert answer.status == 403, (path, answer)
    detail = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]
    assert detail["title"] == "Website rebuild" and detail["share_enabled"] == 0 and detail["share_token"] is None
    assert detail["total_amount"] == 4560.97  # the owner's pricing (factories.price)
    # deciding stays theirs, and a copy of what they read is their own draft
    assert api.post(f"/api/proposals/{pid}/request-changes", as_=second, json={"comments": "Too dear"}).status == 200
    copy = api.post(f"/api/proposals/{pid}/duplicate", as_=first, json={})
    assert copy.status == 201, copy
    # submitting the owner's proposal again is the owner's move, not an approver's
    assert api.post(f"/api/proposals/{pid}/submit", as_=first, json={}).status == 403
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200


def test_a_listed_approver_does_not_change_the_content_page_through_the_pages_api(api, db):
    """The proposal's content page is read with the proposal (approvers included); editing, archiving or restoring
    it is changing the proposal: 403 to a caller who sees it only as a listed approver, the owner's edits go on."""
    owner, first, second, pid = _in_review_with_two_approvers(api, db)
    page_id = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["page_id"]
    page = f"/api/pages/{page_id}"
    assert api.get(page, as_=first).status == 200
    version = api.post(f"{page}/versions", as_=owner, json={})
    assert version.status == 201, version
    version_id = version.json["version"]["id"]
    assert api.patch(page, as_=first, json={"content": "Half the price"}).status == 403
    assert api.patch(page, as_=first, json={"is_published": 1}).status == 403
    assert api.post(f"{page}/versions/{version_id}/restore", as_=first, json={}).status == 403
    assert api.delete(page, as_=first).status == 403
    after = api.get(page, as_=owner).json["page"]
    assert after["content"] != "Half the price" and after["is_archived"] == 0
    assert api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["status"] == "review"
    assert api.patch(page, as_=owner, json={"icon": "x"}).status == 200
