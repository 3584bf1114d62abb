"""A deal marked won by PUT completes its company's `deal_won` onboarding milestone, as a proposal's acceptance does
(docs/decisions/deals.md, session 22)."""
from tests.areas.deals.factories import make_company, make_deal
from tests.areas.onboarding.test_onboarding import BASE, template


def _default_template(api, user) -> None:
    ids = template(api, user, "Default")
    api.patch(f"{BASE}/{ids['template']}", as_=user, json={"is_default": True})
    api.patch(f"{BASE}/milestones/{ids['Contract signed']}", as_=user, json={"auto_source": "deal_won"})


def _done(api, user, company_id):
    progress = api.get(f"/api/clients/{company_id}/onboarding", as_=user).json["onboarding"]
    if progress is None:
        return None
    return {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}


def test_deal_won_through_put_completes_deal_won_milestone(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    deal = make_deal(db, company_id=company.id)
    won = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won"})
    assert won.status == 200 and won.json["deal"]["status"] == "won", won
    assert _done(api, exec_user, company.id) == {"Contract signed": "deal_won"}
    # sent again: the milestone stays completed once
    again = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won"})
    assert again.status == 200, again
    assert _done(api, exec_user, company.id) == {"Contract signed": "deal_won"}


def test_deal_already_won_sent_back_starts_no_onboarding(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    deal = make_deal(db, company_id=company.id, status="won")
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won", "title": "Renamed"})
    assert answer.status == 200, answer
    assert _done(api, exec_user, company.id) is None  # no real move to won: nothing started


def test_deal_won_without_company_and_other_statuses_complete_nothing(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    lost = make_deal(db, company_id=company.id)
    assert api.put(f"/api/deals/deals/{lost.id}", as_=exec_user, json={"status": "lost"}).status == 200
    assert _done(api, exec_user, company.id) is None
    alone = make_deal(db)
    answer = api.put(f"/api/deals/deals/{alone.id}", as_=exec_user, json={"status": "won"})
    assert answer.status == 200 and answer.json["deal"]["status"] == "won", answer


def test_deal_won_and_given_a_company_in_one_put_completes_that_companys_milestone(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    deal = make_deal(db)
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won", "company_id": company.id})
    assert answer.status == 200, answer
    assert _done(api, exec_user, company.id) == {"Contract signed": "deal_won"}
