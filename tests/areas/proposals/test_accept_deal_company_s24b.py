"""Session 24: a public accept that moves the proposal's deal to won completes the `deal_won` onboarding milestone of
the deal's own company too, as every other way a deal becomes won does (docs/decisions/deals.md), when that company
is not the proposal's; the `accepted` history names `deal_won` only when the deal really moved to won
(docs/decisions/proposals.md, session 24)."""
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from tests.areas.deals.factories import default_onboarding, make_company, make_deal, onboarding_done
from tests.areas.proposals.factories import accept_shared, sent, share


def _accept(api, db, user, pid) -> dict:
    accept_shared(api, share(api, user, pid))
    return db.scalar(select(HistoryEntry.changes).where(HistoryEntry.entity_id == pid,
                                                        HistoryEntry.action == "accepted"))


def test_accept_of_a_proposal_without_company_wins_the_deal_of_a_company(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    deal = make_deal(db, company_id=company.id)
    pid = sent(api, exec_user, deal_id=deal.id)  # the proposal names the deal, not the company
    changes = _accept(api, db, exec_user, pid)
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).json["deal"]["status"] == "won"
    assert changes["deal_won"] == deal.id
    assert onboarding_done(api, exec_user, company.id) == {"Contract signed": "deal_won"}


def test_accept_of_a_proposal_whose_deal_is_another_companys(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    theirs, other = make_company(db, status="client"), make_company(db, status="client")
    deal = make_deal(db, company_id=theirs.id)
    pid = sent(api, exec_user, deal_id=deal.id, company_id=other.id)
    _accept(api, db, exec_user, pid)
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).json["deal"]["status"] == "won"
    assert onboarding_done(api, exec_user, theirs.id) == {"Contract signed": "deal_won"}
    # the proposal's company, as before
    assert onboarding_done(api, exec_user, other.id) == {"Contract signed": "deal_won"}


def test_accept_of_a_proposal_of_the_deals_company_completes_it_once(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    deal = make_deal(db, company_id=company.id)
    pid = sent(api, exec_user, deal_id=deal.id, company_id=company.id)
    changes = _accept(api, db, exec_user, pid)
    assert onboarding_done(api, exec_user, company.id) == {"Contract signed": "deal_won"}
    assert changes["deal_won"] == deal.id and changes["onboarding_milestones"] == 1
    entries = db.scalars(select(HistoryEntry.changes).where(HistoryEntry.entity_id == company.id,
                                                            HistoryEntry.action == "milestone_completed")).all()
    assert entries == [{"source": "deal_won", "milestones": 1}]  # one completion, one entry: not twice


def test_accept_of_an_already_won_deal_says_no_deal_won_and_leaves_its_company(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    theirs, other = make_company(db, status="client"), make_company(db, status="client")
    deal = make_deal(db, company_id=theirs.id, status="won")  # stored won: no move to won now
    pid = sent(api, exec_user, deal_id=deal.id, company_id=other.id)
    changes = _accept(api, db, exec_user, pid)
    assert "deal_won" not in changes, changes
    assert api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).json["deal"]["status"] == "won"
    assert onboarding_done(api, exec_user, theirs.id) is None  # no real change: no event for the deal's company
    assert onboarding_done(api, exec_user, other.id) == {"Contract signed": "deal_won"}  # the accept's own, as before
