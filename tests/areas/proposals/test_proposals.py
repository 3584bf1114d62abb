"""Proposals: CRUD, template cloning with variables, scope, the approval flow with its 409s, pricing and
history (decisions.md section 5)."""
import json
from decimal import Decimal

import pytest
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.proposals.factories import create, price
from tests.factories import make_squad, make_user


def history(db, pid):
    return [e.action for e in db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "proposal",
                                                                    HistoryEntry.entity_id == pid)
                                          .order_by(HistoryEntry.created_at, HistoryEntry.id))]


@pytest.mark.smoke
def test_create_from_template_resolves_variables(api, db, exec_user):
    from chalicelib.areas.pages.models import Page

    company = make_company(db, name="Acme & Co")
    contact = make_contact(db, first_name="Jo", last_name="Quote\"s", company_id=company.id)
    deal = make_deal(db, title="Big deal", company_id=company.id)
    rich = json.dumps({"type": "doc", "content": [
        {"type": "p", "text": "For {{company}} / {{ contact }} on {{deal}} by {{owner}}"},
        {"type": "p", "text": "Valid until {{valid_until}}, today {{today}}, budget {{budget}}, {{unknown}}"}]})
    tid = api.post("/api/proposals/templates", as_=exec_user, json={
        "name": "T", "content_rich": rich, "brand_config": '{"c": 1}', "speaker_notes": '["n"]',
        "variables_schema": json.dumps({"budget": {"default": "10k"}})}).json["id"]
    made = api.post("/api/proposals", as_=exec_user, json={
        "title": "Acme site", "template_id": tid, "company_id": company.id, "contact_id": contact.id,
        "deal_id": deal.id, "valid_until": "2030-01-31"})
    assert made.status == 201, made
    page = db.get(Page, made.json["page_id"])
    texts = [node["text"] for node in json.loads(page.content_rich)["content"]]
    assert texts[0] == f'For Acme & Co / Jo Quote"s on Big deal by {exec_user.name}'
    assert texts[1].startswith("Valid until 2030-01-31, today 20") and "budget 10k, {{unknown}}" in texts[1]
    assert "Acme & Co" in page.content and page.entity_type == "proposal" and page.entity_id == made.json["id"]
    detail = api.get(f"/api/proposals/{made.json['id']}", as_=exec_user).json["proposal"]
    assert detail["status"] == "draft" and detail["version"] == 1 and detail["currency"] == "AUD"
    assert detail["company_name"] == "Acme & Co" and detail["contact_name"] == 'Jo Quote"s'
    assert detail["deal_title"] == "Big deal" and detail["owner_name"] == exec_user.name
    assert detail["brand_config"] == '{"c": 1}' and detail["speaker_notes"] == '["n"]' and detail["template_id"] == tid
    assert detail["share_token"] is None and detail["share_enabled"] == 0 and detail["share_protected"] == 0
    listed = next(p for p in api.get("/api/proposals", as_=exec_user).json["proposals"] if p["id"] == made.json["id"])
    assert listed == {key: detail[key] for key in listed} and "contact_first_name" not in listed
    assert listed["contact_name"] == 'Jo Quote"s' and listed["total_amount"] == detail["total_amount"]
    # a standalone page list does not show proposal pages
    assert all(p["id"] != page.id for p in api.get("/api/pages", as_=exec_user).json["pages"])

    api.delete(f"/api/proposals/templates/{tid}", as_=exec_user)
    refused = api.post("/api/proposals", as_=exec_user, json={"title": "x", "template_id": tid})
    assert refused.status == 400
    # a template that does not exist is refused as an inactive one (session 26: it was 404, as if the route were
    # missing; every other reference in a body is a 400 naming its field)
    missing = api.post("/api/proposals", as_=exec_user, json={"title": "x", "template_id": "nope"})
    assert missing.status == 400 and missing.json["details"] == [{"field": "template_id",
                                                                   "message": "must be an active template"}]


def test_create_update_delete_and_history(api, db, exec_user):
    from chalicelib.areas.pages.models import Page

    company = make_company(db)
    pid = create(api, exec_user, company_id=company.id, currency="usd")
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["currency"] == "USD"
    bad = api.post("/api/proposals", as_=exec_user, json={"title": "x", "company_id": "nope", "deal_id": "nope"})
    assert bad.status == 400 and {d["field"] for d in bad.json["details"]} == {"company_id", "deal_id"}
    assert api.post("/api/proposals", as_=exec_user, json={"title": "x", "valid_until": "soon"}).status == 400
    assert api.post("/api/proposals", as_=exec_user, json={"title": " "}).status == 400
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={}).status == 400
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"title": "New", "valid_until": "2031-02-03"}).json == {"ok": True}
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert detail["title"] == "New" and detail["valid_until"] == "2031-02-03"
    assert db.get(Page, detail["page_id"]).title == "New"
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"title": None}).status == 400
    assert api.delete(f"/api/proposals/{pid}", as_=exec_user).json == {"ok": True}
    db.expire_all()
    assert db.get(Page, detail["page_id"]) is None
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).status == 404
    assert history(db, pid) == ["created", "updated", "deleted"]


def test_duplicate_copies_content_and_pricing(api, db, exec_user):
    from chalicelib.areas.pages.models import Page

    tid = api.post("/api/proposals/templates", as_=exec_user, json={
        "name": "T", "content_rich": '{"text": "hi"}'}).json["id"]
    pid = create(api, exec_user, template_id=tid)
    price(api, exec_user, pid)
    api.post(f"/api/proposals/{pid}/submit", as_=exec_user)
    copy = api.post(f"/api/proposals/{pid}/duplicate", as_=exec_user)
    assert copy.status == 201 and set(copy.json) == {"proposal"}  # a create (document 1 convention 5)
    assert set(copy.json["proposal"]) == {"id"} and copy.json["proposal"]["id"] != pid
    cid = copy.json["proposal"]["id"]
    original = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    duplicate = api.get(f"/api/proposals/{cid}", as_=exec_user).json["proposal"]
    assert duplicate["status"] == "draft" and duplicate["title"] == "Website rebuild (Copy)"
    assert duplicate["page_id"] != original["page_id"] and duplicate["total_amount"] == original["total_amount"]
    assert db.get(Page, duplicate["page_id"]).content_rich == '{"text": "hi"}'
    a = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["sections"]
    b = api.get(f"/api/proposals/{cid}/pricing", as_=exec_user).json["sections"]
    strip = lambda sections: [(s["title"], [(i["description"], i["amount"]) for i in s["items"]]) for s in sections]  # noqa: E731
    assert strip(a) == strip(b) and a[0]["id"] != b[0]["id"]
    assert "duplicated" in history(db, pid)


def test_pricing_amounts_are_exact(api, db, exec_user):
    pid = create(api, exec_user)
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json == {"sections": [], "total_amount": None,
                                                                             "currency": "AUD"}
    price(api, exec_user, pid, [
        {"title": "A", "items": [{"description": "x", "quantity": "0.1", "unit_price": "0.2", "amount": 999},
                                 {"description": "y", "quantity": 3, "unit_price": "33.33"}]},
        {"title": "B", "position": 7, "items": [{"description": "z", "quantity": "1.5", "unit_price": "0.03"}]}])
    pricing = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json
    amounts = [[i["amount"] for i in s["items"]] for s in pricing["sections"]]
    assert amounts == [[0.02, 99.99], [0.05]]  # 0.1 x 0.2 = 0.02 (the amount sent is ignored); 0.045 -> 0.05
    assert pricing["total_amount"] == 100.06 and [s["position"] for s in pricing["sections"]] == [0, 7]
    from chalicelib.areas.proposals.models import Proposal
    assert db.get(Proposal, pid).total_amount == Decimal("100.06")
    section_b = pricing["sections"][1]["id"]
    assert api.delete(f"/api/proposals/{pid}/pricing/{section_b}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["total_amount"] == 100.01
    assert api.delete(f"/api/proposals/{pid}/pricing/{section_b}", as_=exec_user).status == 404
    other = create(api, exec_user)
    assert api.delete(f"/api/proposals/{other}/pricing/{pricing['sections'][0]['id']}", as_=exec_user).status == 404
    bad = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [{"description": "x", "quantity": -1}]}]})
    assert bad.status == 400
    assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [{"description": "x", "unit_price": True}]}]}).status == 400
    assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": []}).json == {"ok": True}
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["total_amount"] is None
    assert history(db, pid).count("pricing_replaced") == 2 and "pricing_section_deleted" in history(db, pid)


def test_pricing_numbers_beyond_their_columns_name_the_field(api, db, exec_user):
    """decisions.md section 4: a validation error names its field. A quantity holds 10 digits before the point and a
    unit price 12 (Numeric(12, 2), Numeric(14, 2)): larger ones reached the database, a 400 naming no field."""
    pid = create(api, exec_user)
    for item, field in [({"quantity": 10 ** 10}, "quantity"), ({"unit_price": 10 ** 12}, "unit_price"),
                        ({"unit_price": "-1000000000000"}, "unit_price")]:
        answer = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
            {"title": "A", "items": [{"description": "x", **item}]}]})
        assert answer.status == 400 and answer.json["details"][0]["field"].endswith(field), (item, answer.json)
    largest = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [{"description": "x", "quantity": "9999999999.99", "unit_price": "0.01"}]}]})
    assert largest.status == 200, largest


def test_status_moves_and_409s(api, db, exec_user):
    pid = create(api, exec_user)
    for step in ("approve", "request-changes", "mark-sent"):
        answer = api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={"comments": "c"})
        assert answer.status == 409, (step, answer)
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).json == {"ok": True}
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 409
    assert api.post(f"/api/proposals/{pid}/mark-sent", as_=exec_user).status == 409
    missing = api.post(f"/api/proposals/{pid}/request-changes", as_=exec_user, json={})
    assert missing.status == 400
    assert api.post(f"/api/proposals/{pid}/request-changes", as_=exec_user, json={"comments": "  "}).status == 400
    assert api.post(f"/api/proposals/{pid}/request-changes", as_=exec_user, json={"comments": "Fix price"}).json == {"ok": True}
    proposal = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert proposal["status"] == "changes_requested"
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={}).status == 409
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 200
    proposal = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert proposal["status"] == "review" and proposal["version"] == 2
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={"comments": "ok"}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={}).status == 409
    assert api.post(f"/api/proposals/{pid}/mark-sent", as_=exec_user).status == 200
    proposal = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert proposal["status"] == "sent" and proposal["sent_at"]
    assert api.post(f"/api/proposals/{pid}/mark-sent", as_=exec_user).status == 409
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 409
    assert history(db, pid) == ["created", "submitted", "changes_requested", "submitted", "approved", "sent"]


def test_listed_approvers_each_approve_once(api, db, exec_user):
    manager_a = make_user(db, access_level="manager")
    manager_b = make_user(db, access_level="manager")
    pid = create(api, exec_user, approver_ids=[manager_a.id, manager_b.id])
    bad = api.post("/api/proposals", as_=exec_user, json={"title": "x", "approver_ids": ["nope"]})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "approver_ids"
    api.post(f"/api/proposals/{pid}/submit", as_=exec_user)
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={}).status == 403  # not listed
    assert api.post(f"/api/proposals/{pid}/approve", as_=manager_a, json={"comments": "yes"}).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=manager_a, json={}).status == 409
    detail = api.get(f"/api/proposals/{pid}", as_=manager_a).json["proposal"]  # an approver sees it
    assert detail["status"] == "review" and sorted(detail["approver_ids"]) == sorted([manager_a.id, manager_b.id])
    listed = next(p for p in api.get("/api/proposals", as_=exec_user).json["proposals"] if p["id"] == pid)
    assert listed["approver_ids"] == detail["approver_ids"]  # the same order (by listing time) in list and detail
    assert [a["comments"] for a in detail["approvals"] if a["user_id"] == manager_a.id] == ["yes"]
    assert api.post(f"/api/proposals/{pid}/approve", as_=manager_b, json={}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["status"] == "approved"
    assert history(db, pid)[-2:] == ["approval_given", "approved"]


def test_the_detail_approvals_carry_their_id(api, db, exec_user):
    """decisions.md section 9: every record in a response carries its id. The detail's `approvals` are rows of
    proposal_approvals; each answered user_id, user_name, listed, approved_at and comments, and no id."""
    from chalicelib.areas.proposals.models import ProposalApproval

    approvers = [make_user(db, access_level="manager") for _ in range(2)]
    pid = create(api, exec_user, approver_ids=[a.id for a in approvers])
    api.post(f"/api/proposals/{pid}/submit", as_=exec_user)
    assert api.post(f"/api/proposals/{pid}/approve", as_=approvers[0], json={"comments": "yes"}).status == 200
    rows = {a.user_id: a.id for a in db.scalars(select(ProposalApproval).where(ProposalApproval.proposal_id == pid))}
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert {a["user_id"]: a["id"] for a in detail["approvals"]} == rows and len(rows) == 2
    assert set(detail["approvals"][0]) == {"id", "user_id", "user_name", "listed", "approved_at", "comments"}


def test_manage_holder_approves_when_none_listed(api, db, exec_user, employee):
    pid = create(api, employee)
    api.post(f"/api/proposals/{pid}/submit", as_=employee)
    assert api.post(f"/api/proposals/{pid}/approve", as_=employee, json={}).status == 403  # update only
    assert api.post(f"/api/proposals/{pid}/request-changes", as_=employee, json={"comments": "x"}).status == 403
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=employee).json["proposal"]["status"] == "approved"


def test_deleting_a_pricing_section_needs_manage(api, db, employee):
    """decisions.md section 5: view for reads, update for writes, manage for delete."""
    from tests.factories import grant

    pid = create(api, employee)
    price(api, employee, pid, [{"title": "A", "items": [{"description": "x", "unit_price": 10}]}])
    section = api.get(f"/api/proposals/{pid}/pricing", as_=employee).json["sections"][0]["id"]
    assert api.delete(f"/api/proposals/{pid}/pricing/{section}", as_=employee).status == 403  # update only
    grant(db, employee, "proposals", "manage")
    assert api.delete(f"/api/proposals/{pid}/pricing/{section}", as_=employee).json == {"ok": True}


def test_deleting_a_section_may_not_leave_the_total_below_zero(api, db, exec_user):
    """A replacement whose total is below zero is a 400 (docs/decisions/proposals.md, Pricing); deleting the items'
    section and leaving the discount alone reached it, and the client's accept then answered 409 (invariant audit).
    The delete is a 409, nothing removed; deleting the discount is fine."""
    pid = create(api, exec_user)
    price(api, exec_user, pid, [
        {"title": "Build", "items": [{"description": "Design", "quantity": 1, "unit_price": 1000}]},
        {"title": "Discount", "items": [{"description": "Loyalty", "quantity": 1, "unit_price": -300}]}])
    sections = {s["title"]: s["id"] for s in api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["sections"]}
    refused = api.delete(f"/api/proposals/{pid}/pricing/{sections['Build']}", as_=exec_user)
    assert refused.status == 409, refused
    pricing = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json
    assert (len(pricing["sections"]), pricing["total_amount"]) == (2, 700)
    assert api.delete(f"/api/proposals/{pid}/pricing/{sections['Discount']}", as_=exec_user).status == 200
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["total_amount"] == 1000
    assert api.delete(f"/api/proposals/{pid}/pricing/{sections['Build']}", as_=exec_user).status == 200


def test_scope_by_access_level(api, db, exec_user):
    squad = make_squad(db)
    manager = make_user(db, access_level="manager", squad_id=squad.id)
    mine = make_user(db, access_level="employee", squad_id=squad.id)
    other = make_user(db, access_level="employee")
    lead = make_user(db, access_level="lead")
    head = make_user(db, access_level="head")
    own = create(api, mine)
    foreign = create(api, other)
    assert {p["id"] for p in api.get("/api/proposals", as_=mine).json["proposals"]} == {own}
    assert {p["id"] for p in api.get("/api/proposals", as_=lead).json["proposals"]} == set()
    assert {p["id"] for p in api.get("/api/proposals", as_=manager).json["proposals"]} == {own}
    assert {own, foreign} <= {p["id"] for p in api.get("/api/proposals", as_=head).json["proposals"]}
    assert {own, foreign} <= {p["id"] for p in api.get("/api/proposals", as_=exec_user).json["proposals"]}
    for path in (f"/api/proposals/{foreign}", f"/api/proposals/{foreign}/pricing"):
        assert api.get(path, as_=mine).status == 404 and api.get(path, as_=manager).status == 404
    assert api.put(f"/api/proposals/{foreign}", as_=mine, json={"title": "x"}).status == 404
    assert api.post(f"/api/proposals/{foreign}/submit", as_=manager).status == 404
    assert api.post(f"/api/proposals/{foreign}/duplicate", as_=mine).status == 404
    assert api.delete(f"/api/proposals/{own}", as_=mine).status == 403  # delete needs manage
    filtered = api.get(f"/api/proposals?owner_id={other.id}&status=draft", as_=exec_user).json["proposals"]
    assert [p["id"] for p in filtered] == [foreign]
    assert api.get("/api/proposals?status=bogus", as_=exec_user).status == 400


def test_final_statuses_refuse_changes(api, db, exec_user):
    from chalicelib.areas.proposals.models import Proposal

    pid = create(api, exec_user)
    db.get(Proposal, pid).status = "accepted"
    db.flush()
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"title": "x"}).status == 409
    assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": []}).status == 409
    for step in ("submit", "approve", "mark-sent"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={}).status == 409


def test_proposal_list_costs_constant_statements(api, db, exec_user, count_queries):
    from chalicelib.areas.pages.models import Page
    from chalicelib.areas.proposals.models import Proposal, ProposalApproval

    approver = make_user(db, access_level="manager")
    counts = []
    for n in (5, 95):
        for i in range(n):
            company = make_company(db)
            page = Page(title=f"P{i}", entity_type="proposal")
            db.add(page)
            db.flush()
            proposal = Proposal(title=f"P{i}", page_id=page.id, company_id=company.id, owner_id=exec_user.id)
            db.add(proposal)
            db.flush()
            db.add(ProposalApproval(proposal_id=proposal.id, user_id=approver.id, listed=True))
        db.flush()
        with count_queries() as counter:
            answer = api.get("/api/proposals", as_=exec_user)
        assert answer.status == 200 and all(p["company_name"] and p["approver_ids"] for p in answer.json["proposals"])
        counts.append(counter.count)
    assert len(answer.json["proposals"]) == 100 and counts[0] == counts[1], counts


def test_a_sent_or_viewed_proposal_can_still_be_updated(api, db, exec_user):
    """docs/decisions/proposals.md: update is refused (409) only once accepted, declined or expired; document 2's
    update operation names no status condition."""
    from chalicelib.areas.proposals.models import Proposal
    from tests.areas.proposals.factories import sent

    pid = sent(api, exec_user)
    answer = api.put(f"/api/proposals/{pid}", as_=exec_user, json={"valid_until": "2031-05-06", "title": "Later"})
    assert answer.status == 200 and answer.json == {"ok": True}, answer
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert (detail["status"], detail["valid_until"], detail["title"]) == ("sent", "2031-05-06", "Later")
    db.get(Proposal, pid).status = "viewed"
    db.flush()
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"title": "Viewed"}).status == 200
    for final in ("declined", "expired"):
        db.get(Proposal, pid).status = final
        db.flush()
        assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"title": "x"}).status == 409, final
    assert "updated" in history(db, pid)


def test_pricing_service_type_must_be_a_service_type(api, db, exec_user):
    """An item's service_type_id is the id of a `service_type` config list item (the budget line and invoice line
    made from it on accept carry it): anything else is a 400 naming the field, and nothing is replaced."""
    from tests.factories import config_item

    pid = create(api, exec_user)
    price(api, exec_user, pid)
    service_type = config_item(db, "service_type", "design")
    wrong_list = config_item(db, "task_status", "todo")
    for wrong in ("nope", wrong_list.id):
        bad = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
            {"title": "A", "items": [{"description": "x", "service_type_id": wrong}]}]})
        assert bad.status == 400 and bad.json["details"][0]["field"] == "sections.0.items.0.service_type_id", bad
    assert len(api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["sections"]) == 2  # unchanged
    good = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [{"description": "x", "service_type_id": service_type.id, "unit_price": 10}]}]})
    assert good.status == 200, good
    item = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["sections"][0]["items"][0]
    assert item["service_type_id"] == service_type.id


def test_removing_the_last_pending_approver_approves(api, db, exec_user):
    """Document 2: review -> approved when all approvers have approved. The approvals kept by an update
    (docs/decisions/proposals.md) count: dropping the only approver still pending approves the proposal, which
    otherwise nobody could move any more (the listed ones have approved once, the others may not)."""
    manager_a = make_user(db, access_level="manager")
    manager_b = make_user(db, access_level="manager")
    pid = create(api, exec_user, approver_ids=[manager_a.id, manager_b.id])
    api.post(f"/api/proposals/{pid}/submit", as_=exec_user)
    assert api.post(f"/api/proposals/{pid}/approve", as_=manager_a, json={}).status == 200
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"approver_ids": [manager_a.id]}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["status"] == "approved"
    assert history(db, pid)[-2:] == ["updated", "approved"]
    assert api.post(f"/api/proposals/{pid}/mark-sent", as_=exec_user).status == 200


def test_pricing_holds_at_most_500_items(api, db, exec_user):
    """decisions.md section 4: a list answers at most 500 rows, and GET pricing answers every item, so a
    replacement carries at most 500 items in all (400; it was a 500 past pg8000's 65,535 bind parameters)."""
    pid = create(api, exec_user)
    item = {"description": "x", "quantity": 1, "unit_price": 1}
    too_many = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": f"S{n}", "items": [item] * 200} for n in range(50)]})
    assert too_many.status == 400 and too_many.json["details"][0]["field"] == "sections", too_many
    assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [item] * 200}, {"title": "B", "items": [item] * 200}, {"title": "C", "items": [item] * 101}]}
    ).status == 400
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["sections"] == []
    full = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [item] * 200}, {"title": "B", "items": [item] * 200}, {"title": "C", "items": [item] * 100}]})
    assert full.status == 200, full
    pricing = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json
    assert sum(len(s["items"]) for s in pricing["sections"]) == 500 and pricing["total_amount"] == 500


def test_the_approvals_hold_at_most_500_oldest_first(api, db, exec_user):
    """decisions.md section 4 caps every list at 500 rows; docs/decisions/proposals.md: the detail's `approvals`
    hold at most 500, oldest first (by approval row time, then user id), and `approver_ids` (detail and list)
    the listed approvers in the same order. The API lists at most 50 approvers a write, so the rows are put in
    the database directly (one multi-row INSERT each)."""
    import uuid
    from datetime import UTC, datetime, timedelta

    from chalicelib.areas.proposals.models import ProposalApproval
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.models import User

    pid = create(api, exec_user)
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 200
    users = insert_rows(db, User, [{"email": f"approver-{uuid.uuid4().hex}@agency.test", "name": f"Approver {n}",
                                    "access_level": "employee", "is_active": True} for n in range(501)])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    # two rows a second, so the user id breaks the ties; every other one has approved
    rows = insert_rows(db, ProposalApproval, [
        {"proposal_id": pid, "user_id": user["id"], "listed": True, "created_at": start + timedelta(seconds=n // 2),
         "approved_at": start + timedelta(days=1) if n % 2 == 0 else None, "comments": f"ok {n}" if n % 2 == 0 else None}
        for n, user in enumerate(users)])
    db.flush()
    oldest = sorted(rows, key=lambda r: (r["created_at"], r["user_id"]))
    expected = [r["user_id"] for r in oldest[:500]]

    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert len(detail["approvals"]) == 500
    assert [a["user_id"] for a in detail["approvals"]] == expected
    assert oldest[500]["user_id"] not in {a["user_id"] for a in detail["approvals"]}  # the newest is left out
    first = detail["approvals"][0]
    assert first["listed"] == 1 and first["user_name"].startswith("Approver ")
    assert [a["id"] for a in detail["approvals"]] == [r["id"] for r in oldest[:500]]  # each row's id
    assert {a["comments"] for a in detail["approvals"] if a["approved_at"]} == {
        r["comments"] for r in oldest[:500] if r["approved_at"]}
    assert detail["approver_ids"] == expected
    listed = next(p for p in api.get("/api/proposals", as_=exec_user).json["proposals"] if p["id"] == pid)
    assert listed["approver_ids"] == expected


@pytest.mark.parametrize("field", ["speaker_notes", "brand_config"])
def test_json_text_nested_too_deep_is_a_400(api, db, exec_user, field):
    """A proposal's JSON text is held to a request body's nesting bound (64 levels): 400 naming the field, where
    100,000 levels overflowed the parse (a 500)."""
    deep = "[" * 100_000 + "]" * 100_000
    answer = api.post("/api/proposals", as_=exec_user, json={"title": "P", "currency": "AUD", field: deep})
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": field, "message": "nested deeper than 64 levels"}]
    made = api.post("/api/proposals", as_=exec_user, json={"title": "P", "currency": "AUD"})
    assert made.status == 201, made
    answer = api.put(f"/api/proposals/{made.json['id']}", as_=exec_user, json={field: deep})
    assert answer.status == 400 and answer.json["details"][0]["field"] == field, answer


def test_listing_the_manage_holder_who_approved_as_an_approver(api, db, exec_user, employee):
    """docs/decisions/proposals.md: approver_ids (update) are active users, no repeats (400 otherwise). A
    proposals:manage holder who approved a proposal listing nobody keeps an (unlisted) approval row; listing them
    afterwards answered 409 ("already exists") from that row's unique key instead of listing them. (Another's
    proposal: the owner is never listed.)"""
    pid = create(api, employee)
    api.post(f"/api/proposals/{pid}/submit", as_=employee)
    assert api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={}).status == 200
    listed = api.put(f"/api/proposals/{pid}", as_=exec_user, json={"approver_ids": [exec_user.id]})
    assert listed.status == 200, listed
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert detail["approver_ids"] == [exec_user.id] and detail["status"] == "approved"
    assert [(a["user_id"], a["listed"], bool(a["approved_at"])) for a in detail["approvals"]] == [
        (exec_user.id, 1, True)]
    copy = api.post(f"/api/proposals/{pid}/duplicate", as_=employee).json["proposal"]["id"]
    assert api.get(f"/api/proposals/{copy}", as_=employee).json["proposal"]["approver_ids"] == [exec_user.id]


def test_pricing_amounts_and_total_beyond_their_columns_name_the_field(api, db, exec_user):
    """decisions.md section 4: a validation error names its field. Each quantity and unit price fits its column,
    but their product could pass the item's amount (Numeric(16, 2)) and the sum the 12 digits the budget and the
    invoice made on accept hold (core Money): a 400 naming no field, and a priced proposal the client could not
    accept (the public accept answered 400). Now 400 naming the item's amount or `sections`, nothing stored."""
    pid = create(api, exec_user)  # a draft: an approved proposal's pricing no longer changes (session 22)
    price(api, exec_user, pid)
    before = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json
    too_much = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [{"description": "ok", "quantity": 1, "unit_price": 1},
                                 {"description": "x", "quantity": "9999999999", "unit_price": "1000000000"}]}]})
    assert too_much.status == 400, too_much.json
    assert [d["field"] for d in too_much.json["details"]] == ["sections.0.items.1.amount"]
    total = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [{"description": "x", "quantity": "1000", "unit_price": "999999999.99"}]},
        {"title": "B", "items": [{"description": "y", "quantity": "2", "unit_price": "10"}]}]})
    assert total.status == 400, total.json
    assert [d["field"] for d in total.json["details"]] == ["sections"]
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json == before
    largest = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
        {"title": "A", "items": [{"description": "x", "quantity": "1000", "unit_price": "999999999.99"}]}]})
    assert largest.status == 200, largest
    for step in ("submit", "approve", "mark-sent"):  # priced first: then approved and sent
        assert api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={}).status == 200, step
    token = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True}).json["share_token"]
    accepted = api.post(f"/api/proposals/public/{token}/accept", json={"name": "A", "email": "a@b.co"})
    assert accepted.status == 200, accepted


def test_a_manager_sees_direct_reports_and_an_approver_what_they_approve(api, db, exec_user):
    """docs/decisions/proposals.md, Scope: a manager sees their team's proposals (squad members and direct
    reports: a report in another squad too); a listed approver sees the proposals they are asked to approve,
    in the list as in the detail; others answer 404."""
    manager = make_user(db, access_level="manager", squad_id=make_squad(db).id)
    report = make_user(db, access_level="employee", squad_id=make_squad(db).id, manager_id=manager.id)
    approver = make_user(db, access_level="employee")
    stranger = make_user(db, access_level="employee")
    reported = create(api, report)
    asked = create(api, exec_user, approver_ids=[approver.id])
    assert {p["id"] for p in api.get("/api/proposals", as_=manager).json["proposals"]} == {reported}
    assert api.get(f"/api/proposals/{reported}", as_=manager).status == 200
    assert {p["id"] for p in api.get("/api/proposals", as_=approver).json["proposals"]} == {asked}
    assert api.get(f"/api/proposals/{asked}", as_=approver).status == 200
    assert api.get(f"/api/proposals/{asked}", as_=stranger).status == 404
    assert api.get(f"/api/proposals/{asked}/analytics", as_=stranger).status == 404
    assert api.put(f"/api/proposals/{asked}/share", as_=stranger, json={"share_enabled": True}).status == 404
