"""References of companies and deals (references audit, follow-up): a deactivated user owns no company or deal
when the owner is set or changed, a value sent back unchanged is not checked again, and a deal's contact belongs
to the deal's company (or to none)."""
from tests.factories import make_user

from .factories import make_company, make_contact, make_deal

ACTIVE = [{"field": "owner_id", "message": "must be an active user"}]
OTHER_COMPANY = [{"field": "contact_id", "message": "must be a contact of the deal's company"}]


def test_a_deactivated_user_cannot_be_given_a_deal_or_a_company(api, db, exec_user):
    gone = make_user(db, is_active=False)
    response = api.post("/api/deals/deals", json={"title": "Retainer", "owner_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response
    deal = api.post("/api/deals/deals", json={"title": "Retainer"}, as_=exec_user).json["deal"]
    response = api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response

    response = api.post("/api/deals/companies", json={"name": "Acme", "owner_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response
    company = api.post("/api/deals/companies", json={"name": "Acme"}, as_=exec_user).json["company"]
    response = api.put(f"/api/deals/companies/{company['id']}", json={"owner_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response


def test_a_deal_or_company_whose_owner_was_deactivated_can_still_be_sent_back(api, db, exec_user):
    leaving = make_user(db)
    deal = api.post("/api/deals/deals", json={"title": "Renewal", "owner_id": leaving.id}, as_=exec_user).json["deal"]
    company = api.post("/api/deals/companies", json={"name": "Beta", "owner_id": leaving.id},
                       as_=exec_user).json["company"]
    leaving.is_active = False
    db.flush()
    response = api.put(f"/api/deals/deals/{deal['id']}", json={**deal, "title": "Renewal 2027"}, as_=exec_user)
    assert response.status == 200 and response.json["deal"]["owner_id"] == leaving.id, response
    response = api.put(f"/api/deals/companies/{company['id']}", json={**company, "industry": "Retail"}, as_=exec_user)
    assert response.status == 200 and response.json["company"]["owner_id"] == leaving.id, response
    response = api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": exec_user.id}, as_=exec_user)
    assert response.status == 200 and response.json["deal"]["owner_id"] == exec_user.id


def test_a_deals_contact_belongs_to_the_deals_company(api, db, exec_user):
    acme, beta = make_company(db), make_company(db)
    at_acme, at_beta, freelance = (make_contact(db, company_id=acme.id), make_contact(db, company_id=beta.id),
                                   make_contact(db))
    response = api.post("/api/deals/deals", json={"title": "Mixed", "company_id": acme.id, "contact_id": at_beta.id},
                        as_=exec_user)
    assert response.status == 400 and response.json["details"] == OTHER_COMPANY, response
    for contact in (at_acme, freelance):  # its own company's contact, or one of no company
        response = api.post("/api/deals/deals", json={"title": "Fine", "company_id": acme.id,
                                                      "contact_id": contact.id}, as_=exec_user)
        assert response.status == 201, response
    deal = response.json["deal"]
    response = api.put(f"/api/deals/deals/{deal['id']}", json={"contact_id": at_beta.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == OTHER_COMPANY, response

    deal = api.put(f"/api/deals/deals/{deal['id']}", json={"contact_id": at_acme.id}, as_=exec_user).json["deal"]
    # moving the deal to another company while its stored contact is of the first: 400 on contact_id
    response = api.put(f"/api/deals/deals/{deal['id']}", json={"company_id": beta.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == OTHER_COMPANY, response
    response = api.put(f"/api/deals/deals/{deal['id']}", json={"company_id": beta.id, "contact_id": at_beta.id},
                       as_=exec_user)
    assert response.status == 200 and response.json["deal"]["contact_id"] == at_beta.id, response
    response = api.put(f"/api/deals/deals/{deal['id']}", json={"company_id": acme.id, "contact_id": None},
                       as_=exec_user)
    assert response.status == 200 and response.json["deal"]["contact_id"] is None, response


def test_a_deal_whose_contact_moved_company_can_still_be_sent_back(api, db, exec_user):
    acme, beta = make_company(db), make_company(db)
    contact = make_contact(db, company_id=acme.id)
    deal = make_deal(db, company_id=acme.id, contact_id=contact.id, owner_id=exec_user.id)
    response = api.put(f"/api/deals/contacts/{contact.id}", json={"company_id": beta.id}, as_=exec_user)
    assert response.status == 200, response  # the person changed jobs: their old deals keep them
    read = api.get(f"/api/deals/deals/{deal.id}", as_=exec_user).json["deal"]
    response = api.put(f"/api/deals/deals/{deal.id}", json={**read, "value": 900}, as_=exec_user)
    assert response.status == 200 and response.json["deal"]["contact_id"] == contact.id, response
