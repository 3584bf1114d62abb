"""Races of the proposals area against a real HTTP server on Postgres (the server and helpers of
test_concurrency.py): deterministic, another transaction holds the row while the request runs."""
from __future__ import annotations


from sqlalchemy import delete, select, update

from tests.concurrency.test_concurrency import _call, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_write_that_waited_for_a_delete_of_its_proposal_is_a_404(live):
    """A delete, a pricing replacement, a sharing change or a submit while another request deletes the proposal:
    the request that waited finds it gone and answers 404 (it answered 500: the lock's re-read found no row)."""
    from chalicelib.areas.proposals.models import Proposal

    base, sessions = live
    token = _token(executive(sessions))
    calls = [("DELETE", "", None),
             ("PUT", "/pricing", {"sections": [{"title": "Build", "items": [
                 {"description": "Design", "quantity": 1, "unit_price": 100}]}]}),
             ("PUT", "/share", {"share_enabled": True}),
             ("POST", "/submit", {})]
    for method, tail, body in calls:
        status, created = _call(base, "POST", "/api/proposals", token, {"title": "Website rebuild"})
        assert status == 201, created
        pid = created["id"]
        status, answer = while_held(
            sessions, lambda other: other.execute(delete(Proposal).where(Proposal.id == pid)),
            lambda: _call(base, method, f"/api/proposals/{pid}{tail}", token, body))
        assert status == 404, (method, tail, answer)


def test_a_template_delete_that_waited_for_another_records_no_second_deletion(live):
    """Two deletes of one template at once: the one that waited finds it inactive and records nothing, as a
    delete after it does (both recorded `deleted`)."""
    from chalicelib.areas.proposals.models import ProposalTemplate
    from chalicelib.core.models import HistoryEntry

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        template = ProposalTemplate(name="Retainer", is_active=True)
        db.add(template)
        db.commit()
    status, answer = while_held(
        sessions, lambda other: other.execute(update(ProposalTemplate).where(ProposalTemplate.id == template.id)
                                              .values(is_active=False)),
        lambda: _call(base, "DELETE", f"/api/proposals/templates/{template.id}", token))
    assert status == 200, answer
    with sessions() as db:
        entries = db.scalars(select(HistoryEntry.action).where(HistoryEntry.entity_id == template.id)).all()
    assert entries == []  # the other delete (this test's transaction) wrote none


def test_duplicates_during_pricing_replacements_copy_one_pricing_whole(live):
    """Duplicates of a proposal while its pricing is replaced: each copy holds one pricing whole (its total the
    sum of its items, every section with its items), not the total of one and the sections or items of another
    (the copy read the proposal, its sections and their items in separate statements without the lock)."""
    from chalicelib.areas.proposals.models import PricingItem, PricingSection, Proposal
    from tests.concurrency.test_concurrency import THREADS, _all_at_once

    base, sessions = live
    token = _token(executive(sessions))
    status, created = _call(base, "POST", "/api/proposals", token, {"title": "Website rebuild"})
    assert status == 201, created
    pid = created["id"]

    def pricing(i):
        return {"sections": [{"title": f"S{i}-{s}", "items": [
            {"description": f"I{i}-{s}-{n}", "quantity": 1, "unit_price": 100 * i + s * 10 + n} for n in range(3)]}
            for s in range(2)]}

    assert _call(base, "PUT", f"/api/proposals/{pid}/pricing", token, pricing(1))[0] == 200
    copies = []
    for round_ in range(3):
        calls = [(lambda i=i: _call(base, "PUT", f"/api/proposals/{pid}/pricing", token,
                                    pricing(i + 2 + round_ * THREADS))
                  if i % 2 else _call(base, "POST", f"/api/proposals/{pid}/duplicate", token))
                 for i in range(THREADS)]
        results = _all_at_once(calls)
        assert all(status == 200 for status, _ in results[1::2]), results
        assert all(status == 201 for status, _ in results[0::2]), results  # the duplicates: creates
        copies += [body["proposal"]["id"] for _, body in results[0::2]]
    wrong = []
    with sessions() as db:
        for copy_id in copies:
            total = db.scalar(select(Proposal.total_amount).where(Proposal.id == copy_id))
            sections = db.scalars(select(PricingSection.id).where(PricingSection.proposal_id == copy_id)).all()
            amounts = db.scalars(select(PricingItem.amount).where(PricingItem.section_id.in_(sections))).all()
            if len(sections) != 2 or len(amounts) != 6 or total != sum(amounts):
                wrong.append((copy_id, total, len(sections), len(amounts), sum(amounts)))
    assert wrong == [], wrong
