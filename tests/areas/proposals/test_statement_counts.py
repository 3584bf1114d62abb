"""Proposals: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The proposal and template lists are tested in test_proposals.py and test_templates.py."""
from decimal import Decimal

from chalicelib.areas.proposals.models import PricingItem, PricingSection, Proposal, ProposalApproval, ProposalView
from chalicelib.core.locks import insert_rows
from tests.factories import assert_constant, make_user

from .factories import create


def _sections(db, proposal_id, n, start):
    """n pricing sections of two items each."""
    sections = insert_rows(db, PricingSection, [{"proposal_id": proposal_id, "title": f"S{start + i}",
                                                 "position": start + i} for i in range(n)])
    insert_rows(db, PricingItem, [{"section_id": s["id"], "description": "D", "quantity": Decimal("2"),
                                   "unit_price": Decimal("10"), "amount": Decimal("20"), "position": k}
                                  for s in sections for k in range(2)])


def test_detail_approvals(api, db, exec_user, count_queries):
    pid = create(api, exec_user)

    def grow(n):
        insert_rows(db, ProposalApproval, [{"proposal_id": pid, "user_id": make_user(db).id} for _ in range(n)])

    assert_constant(api, count_queries, exec_user, f"/api/proposals/{pid}", grow,
                    lambda b: len(b["proposal"]["approvals"]))


def test_pricing_sections_and_items(api, db, exec_user, count_queries):
    pid = create(api, exec_user)
    made = []

    def grow(n):
        _sections(db, pid, n, len(made))
        made.extend(range(n))

    body = assert_constant(api, count_queries, exec_user, f"/api/proposals/{pid}/pricing", grow,
                           lambda b: len(b["sections"]))
    assert all(len(s["items"]) == 2 for s in body["sections"])


def test_analytics(api, db, exec_user, count_queries):
    pid = create(api, exec_user)
    made = []

    def grow(n):
        insert_rows(db, ProposalView, [{"proposal_id": pid, "session_id": f"s{len(made) + i}",
                                        "slide_index": len(made) + i, "duration_seconds": 3.0, "events": 1}
                                       for i in range(n)])
        made.extend(range(n))

    def size(body):
        return len(body["sessions"]) if len(body["sessions"]) == len(body["analytics"]) else -1

    assert_constant(api, count_queries, exec_user, f"/api/proposals/{pid}/analytics", grow, size)


def test_public_content_sections_and_items(api, db, exec_user, count_queries):
    pid = create(api, exec_user)
    proposal = db.get(Proposal, pid)
    # already viewed: the first view's status change and notification are not what is measured
    proposal.share_enabled, proposal.share_token, proposal.status = True, "tok-statement-counts", "viewed"
    db.flush()
    made = []

    def grow(n):
        _sections(db, pid, n, len(made))
        made.extend(range(n))

    body = assert_constant(api, count_queries, None, "/api/proposals/public/tok-statement-counts", grow,
                           lambda b: len(b["proposal"]["sections"]))
    assert all(len(s["items"]) == 2 for s in body["proposal"]["sections"])
