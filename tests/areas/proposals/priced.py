"""A priced proposal moved to sent. Session 22: an approved (sent, viewed) proposal's pricing is what the approver
approved and cannot change, so a test that accepts a priced proposal prices it before the approval."""
from __future__ import annotations

from tests.areas.proposals.factories import create, price


def priced_sent(api, user, sections=None, **body) -> str:
    """A proposal priced (factories.price: `sections` or its default pricing), then submitted, approved and marked
    sent by `user` (an executive: proposals:manage approves when none is listed)."""
    pid = create(api, user, **body)
    price(api, user, pid, sections)
    for step in ("submit", "approve", "mark-sent"):
        answer = api.post(f"/api/proposals/{pid}/{step}", as_=user, json={})
        assert answer.status == 200, (step, answer)
    return pid
