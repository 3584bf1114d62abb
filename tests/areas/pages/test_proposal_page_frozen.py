"""Session 22 (terminal-state audit): a proposal's content page follows its proposal. Once the proposal is accepted,
declined or expired (the client's answer: the signed content), or approved, sent or viewed (what the approver
approved), its content cannot be rewritten through the pages API (PATCH or a version restore): 409. The proposal's own
routes refuse the same (docs/decisions/proposals.md, session 22). A draft's page stays editable; the check is one
statement more on a proposal's page only."""
from chalicelib.areas.proposals.models import Proposal
from tests.areas.deals.factories import make_company
from tests.areas.proposals.factories import create, price
from tests.factories import make_user

PUBLIC = "/api/proposals/public"


def _page(api, user, pid):
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["page_id"]


def _accepted(api, db, user):
    pid = create(api, user, company_id=make_company(db, name="Acme").id)
    price(api, user, pid)
    api.patch(f"/api/pages/{_page(api, user, pid)}", as_=user, json={"content": "We build it for 4,500"})
    for step in ("submit", "approve", "mark-sent"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=user, json={}).status == 200
    token = api.put(f"/api/proposals/{pid}/share", as_=user, json={"share_enabled": True}).json["share_token"]
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann", "email": "ann@acme.test"}).status == 200
    return pid, _page(api, user, pid), token


def test_an_accepted_proposals_page_cannot_be_rewritten(api, db, exec_user):
    pid, page_id, token = _accepted(api, db, exec_user)
    for body in ({"content": "We will do it for free"}, {"content_rich": '[{"type": "p"}]'}, {"title": "Other"}):
        answer = api.patch(f"/api/pages/{page_id}", as_=exec_user, json=body)
        assert answer.status == 409, (body, answer)
        assert "accepted" in answer.json["error"], answer.json
    assert api.get(f"{PUBLIC}/{token}").json["proposal"]["content"] == "We build it for 4,500"
    # what is not the content stays settable (a favourite, publishing, the icon)
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"icon": "x"}).status == 200


def test_an_accepted_proposals_page_cannot_be_restored(api, db, exec_user):
    pid = create(api, exec_user, company_id=make_company(db, name="Acme").id)
    page_id = _page(api, exec_user, pid)
    api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": "Old terms"})
    version = api.post(f"/api/pages/{page_id}/versions", as_=exec_user, json={})
    assert version.status == 201, version
    version_id = version.json.get("id") or version.json["version"]["id"]
    api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": "Signed terms"})
    for status in ("accepted", "declined", "expired", "approved", "sent", "viewed"):
        db.get(Proposal, pid).status = status
        db.flush()
        answer = api.post(f"/api/pages/{page_id}/versions/{version_id}/restore", as_=exec_user, json={})
        assert answer.status == 409, (status, answer)
    db.expire_all()
    assert api.get(f"/api/pages/{page_id}", as_=exec_user).json["page"]["content"] == "Signed terms"
    db.get(Proposal, pid).status = "draft"
    db.flush()
    assert api.post(f"/api/pages/{page_id}/versions/{version_id}/restore", as_=exec_user, json={}).status == 200
    assert api.get(f"/api/pages/{page_id}", as_=exec_user).json["page"]["content"] == "Old terms"


def test_an_approved_proposals_content_cannot_change_without_a_new_approval(api, db, exec_user):
    """Four eyes: what the approver approved is what is sent. Approved, sent or viewed: content and rich content are
    a 409 naming the way on (a duplicate is a new draft to submit); the title stays (the proposal's update renames)."""
    owner = make_user(db, access_level="manager", name="Owner")
    pid = create(api, owner, approver_ids=[exec_user.id])
    page_id = _page(api, owner, pid)
    assert api.patch(f"/api/pages/{page_id}", as_=owner, json={"content": "Approved text"}).status == 200
    assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={}).status == 200
    for status in ("approved", "sent", "viewed"):
        db.get(Proposal, pid).status = status
        db.flush()
        answer = api.patch(f"/api/pages/{page_id}", as_=owner, json={"content": "Other text"})
        assert answer.status == 409, (status, answer)
        assert "duplicate" in answer.json["error"], answer.json
        assert api.patch(f"/api/pages/{page_id}", as_=owner, json={"content_rich": "[]"}).status == 409
        assert api.patch(f"/api/pages/{page_id}", as_=owner, json={"title": f"Title {status}"}).status == 200
    assert api.get(f"/api/pages/{page_id}", as_=owner).json["page"]["content"] == "Approved text"


def test_draft_review_and_changes_requested_pages_stay_editable(api, db, exec_user):
    pid = create(api, exec_user)
    page_id = _page(api, exec_user, pid)
    for status in ("draft", "review", "changes_requested"):
        db.get(Proposal, pid).status = status
        db.flush()
        answer = api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": f"text {status}"})
        assert answer.status == 200, (status, answer)


def test_the_check_costs_one_statement_on_a_proposals_page_only(api, db, exec_user, count_queries):
    standalone = api.post("/api/pages", as_=exec_user, json={"title": "Handbook"}).json["page"]["id"]
    page_id = _page(api, exec_user, create(api, exec_user))
    counts = {}
    for name, target, body in (("standalone", standalone, {"content": "a"}),
                               ("proposal content", page_id, {"content": "a"}),
                               ("proposal icon", page_id, {"icon": "a"}),
                               ("standalone icon", standalone, {"icon": "a"})):
        with count_queries() as counter:
            assert api.patch(f"/api/pages/{target}", as_=exec_user, json=body).status == 200
        counts[name] = counter.count
    assert counts["proposal content"] == counts["standalone"] + 1, counts
    assert counts["proposal icon"] == counts["standalone icon"], counts
