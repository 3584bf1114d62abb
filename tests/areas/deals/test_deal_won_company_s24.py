"""Session 24: a deal created won with a company, or a won deal given a (new) company, completes that company's
`deal_won` onboarding milestone, as a PUT moving a deal to won does (docs/decisions/deals.md, session 24)."""
from tests.areas.deals.factories import default_onboarding, make_company, make_deal, onboarding_done


def test_deal_created_won_with_company_completes_deal_won(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    made = api.post("/api/deals/deals", as_=exec_user, json={"title": "Big", "company_id": company.id,
                                                             "status": "won"})
    assert made.status == 201 and made.json["deal"]["status"] == "won", made
    assert onboarding_done(api, exec_user, company.id) == {"Contract signed": "deal_won"}


def test_deal_created_open_or_won_without_company_completes_nothing(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    made = api.post("/api/deals/deals", as_=exec_user, json={"title": "Open", "company_id": company.id})
    assert made.status == 201, made
    lost = api.post("/api/deals/deals", as_=exec_user, json={"title": "Lost", "company_id": company.id,
                                                             "status": "lost"})
    assert lost.status == 201, lost
    assert onboarding_done(api, exec_user, company.id) is None
    alone = api.post("/api/deals/deals", as_=exec_user, json={"title": "Alone", "status": "won"})
    assert alone.status == 201 and alone.json["deal"]["status"] == "won", alone


def test_won_deal_given_its_company_later_completes_deal_won(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    deal = make_deal(db)
    assert api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won"}).status == 200
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"company_id": company.id})
    assert answer.status == 200, answer
    assert onboarding_done(api, exec_user, company.id) == {"Contract signed": "deal_won"}


def test_won_deal_moved_to_another_company_completes_that_companys_milestone(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    first, second = make_company(db, status="client"), make_company(db, status="client")
    deal = make_deal(db, company_id=first.id, status="won")  # stored won: no event seen for the first company
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"company_id": second.id})
    assert answer.status == 200, answer
    assert onboarding_done(api, exec_user, second.id) == {"Contract signed": "deal_won"}
    assert onboarding_done(api, exec_user, first.id) is None


def test_open_deal_given_a_company_or_won_deal_sent_back_with_its_company_completes_nothing(api, db, exec_user):
    default_onboarding(api, exec_user, "Contract signed", "deal_won")
    company = make_company(db, status="client")
    deal = make_deal(db)
    assert api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"company_id": company.id}).status == 200
    assert onboarding_done(api, exec_user, company.id) is None
    other = make_company(db, status="client")
    won = make_deal(db, company_id=other.id, status="won")
    answer = api.put(f"/api/deals/deals/{won.id}", as_=exec_user, json={"company_id": other.id, "title": "Same"})
    assert answer.status == 200, answer
    # the company sent back as stored: no change, nothing started
    assert onboarding_done(api, exec_user, other.id) is None
