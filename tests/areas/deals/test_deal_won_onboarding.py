"""A deal marked won by PUT completes its company's `deal_won` onboarding milestone, as a proposal's acceptance does
(docs/decisions/deals.md, session 22)."""
from tests.areas.deals.factories import default_onboarding, make_company, make_deal, onboarding_done


def test_deal_won_through_put_completes_deal_won_milestone(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    deal = make_deal(db, company_id=company.id)
    won = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won"})
    assert won.status == 200 and won.json["deal"]["status"] == "won", won
    assert onboarding_done(api, exec_user, company.id) == {"Contract signed": "deal_won"}
    # sent again: the milestone stays completed once
    again = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won"})
    assert again.status == 200, again
    assert onboarding_done(api, exec_user, company.id) == {"Contract signed": "deal_won"}


def test_deal_already_won_sent_back_starts_no_onboarding(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    deal = make_deal(db, company_id=company.id, status="won")
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won", "title": "Renamed"})
    assert answer.status == 200, answer
    assert onboarding_done(api, exec_user, company.id) is None  # no real move to won: nothing started


def test_deal_won_without_company_and_other_statuses_complete_nothing(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    lost = make_deal(db, company_id=company.id)
    assert api.put(f"/api/deals/deals/{lost.id}", as_=exec_user, json={"status": "lost"}).status == 200
    assert onboarding_done(api, exec_user, company.id) is None
    alone = make_deal(db)
    answer = api.put(f"/api/deals/deals/{alone.id}", as_=exec_user, json={"status": "won"})
    assert answer.status == 200 and answer.json["deal"]["status"] == "won", answer


def test_deal_won_and_given_a_company_in_one_put_completes_that_companys_milestone(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    deal = make_deal(db)
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won", "company_id": company.id})
    assert answer.status == 200, answer
    assert onboarding_done(api, exec_user, company.id) == {"Contract signed": "deal_won"}
