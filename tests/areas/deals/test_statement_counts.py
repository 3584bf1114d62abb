"""Deals: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The company and deal lists are tested in test_companies.py and test_deals.py."""
from tests.factories import assert_constant, config_item, make_user

from .factories import make_company, make_contact, make_deal


def test_contact_list(api, db, exec_user, count_queries):
    def grow(n):
        for _ in range(n):
            make_contact(db, company_id=make_company(db).id, last_name="Smith", created_by=make_user(db).id)

    body = assert_constant(api, count_queries, exec_user, "/api/deals/contacts", grow,
                           lambda b: b["total"] if len(b["contacts"]) == min(b["total"], 50) else -1)
    assert all(c["company_name"] for c in body["contacts"])


def test_company_detail_contacts_and_deals(api, db, exec_user, count_queries):
    company = make_company(db)
    lead = config_item(db, "deal_stage", "lead")

    def grow(n):
        for _ in range(n):
            contact = make_contact(db, company_id=company.id)
            make_deal(db, company_id=company.id, contact_id=contact.id, owner_id=make_user(db).id, stage_id=lead.id)

    body = assert_constant(api, count_queries, exec_user, f"/api/deals/companies/{company.id}", grow,
                           lambda b: len(b["contacts"]) if len(b["contacts"]) == len(b["deals"]) else -1)
    assert all(d["owner_name"] and d["contact_name"] and d["stage_label"] for d in body["deals"])


def test_contact_detail_deals(api, db, exec_user, count_queries):
    contact = make_contact(db, company_id=make_company(db).id)
    lead = config_item(db, "deal_stage", "lead")

    def grow(n):
        for _ in range(n):
            make_deal(db, company_id=make_company(db).id, contact_id=contact.id, owner_id=make_user(db).id,
                      stage_id=lead.id)

    body = assert_constant(api, count_queries, exec_user, f"/api/deals/contacts/{contact.id}", grow,
                           lambda b: len(b["deals"]))
    assert all(d["owner_name"] and d["company_name"] for d in body["deals"])
