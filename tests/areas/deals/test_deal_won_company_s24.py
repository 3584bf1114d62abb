"""Session 24: a deal created won with a company, or a won deal given a (new) company, completes that company's
`deal_won` onboarding milestone, as a PUT moving a deal to won does (docs/decisions/deals.md, session 24)."""
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


def test_deal_created_won_with_company_completes_deal_won(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    made = api.post("/api/deals/deals", as_=exec_user, json={"title": "Big", "company_id": company.id,
                                                             "status": "won"})
    assert made.status == 201 and made.json["deal"]["status"] == "won", made
    assert _done(api, exec_user, company.id) == {"Contract signed": "deal_won"}


def test_deal_created_open_or_won_without_company_completes_nothing(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    made = api.post("/api/deals/deals", as_=exec_user, json={"title": "Open", "company_id": company.id})
    assert made.status == 201, made
    lost = api.post("/api/deals/deals", as_=exec_user, json={"title": "Lost", "company_id": company.id,
                                                             "status": "lost"})
    assert lost.status == 201, lost
    assert _done(api, exec_user, company.id) is None
    alone = api.post("/api/deals/deals", as_=exec_user, json={"title": "Alone", "status": "won"})
    assert alone.status == 201 and alone.json["deal"]["status"] == "won", alone


def test_won_deal_given_its_company_later_completes_deal_won(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    deal = make_deal(db)
    assert api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"status": "won"}).status == 200
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"company_id": company.id})
    assert answer.status == 200, answer
    assert _done(api, exec_user, company.id) == {"Contract signed": "deal_won"}


def test_won_deal_moved_to_another_company_completes_that_companys_milestone(api, db, exec_user):
    _default_template(api, exec_user)
    first, second = make_company(db, status="client"), make_company(db, status="client")
    deal = make_deal(db, company_id=first.id, status="won")  # stored won: no event seen for the first company
    answer = api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"company_id": second.id})
    assert answer.status == 200, answer
    assert _done(api, exec_user, second.id) == {"Contract signed": "deal_won"}
    assert _done(api, exec_user, first.id) is None


def test_open_deal_given_a_company_or_won_deal_sent_back_with_its_company_completes_nothing(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    deal = make_deal(db)
    assert api.put(f"/api/deals/deals/{deal.id}", as_=exec_user, json={"company_id": company.id}).status == 200
    assert _done(api, exec_user, company.id) is None
    other = make_company(db, status="client")
    won = make_deal(db, company_id=other.id, status="won")
    answer = api.put(f"/api/deals/deals/{won.id}", as_=exec_user, json={"company_id": other.id, "title": "Same"})
    assert answer.status == 200, answer
    assert _done(api, exec_user, other.id) is None  # the company sent back as stored: no change, nothing started
