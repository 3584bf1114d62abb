"""Relationships: every list a route answers costs the same statements at 5 and at 100 rows
(docs/area-contract.md, "Reads"). The action lists and the relationship summary are tested in test_actions.py and
test_partners_summary.py."""
from datetime import date

from chalicelib.areas.relationships.models import LifeEvent, Partner, RelationshipMessage
from chalicelib.core.locks import insert_rows
from tests.areas.deals.factories import make_company, make_contact
from tests.areas.portal.conftest import make_client
from tests.factories import assert_constant, make_user

BASE = "/api/relationships"


def test_life_events(api, db, exec_user, count_queries):
    company = make_company(db)
    contact = make_contact(db, company_id=company.id)

    def grow(n):
        insert_rows(db, LifeEvent, [{"contact_id": contact.id, "event_type": "birthday", "title": f"E{i}",
                                     "event_date": date(2026, 1 + i % 12, 1), "company_id": company.id,
                                     "created_by": make_user(db).id} for i in range(n)])

    assert_constant(api, count_queries, exec_user, f"{BASE}/contacts/{contact.id}/life-events", grow,
                    lambda b: len(b["events"]))


def test_messages(api, db, exec_user, count_queries):
    contact = make_contact(db, company_id=make_company(db).id)

    def grow(n):
        insert_rows(db, RelationshipMessage, [{"contact_id": contact.id, "channel": "sms", "body": f"Hi {i}",
                                               "to_number": "+61400000000", "status": "sent",
                                               "sent_by": make_user(db).id} for i in range(n)])

    assert_constant(api, count_queries, exec_user, f"{BASE}/contacts/{contact.id}/messages", grow,
                    lambda b: len(b["messages"]))


def test_partners(api, db, exec_user, count_queries):
    company = make_client(db)

    def grow(n):
        insert_rows(db, Partner, [{"company_id": company.id, "partner_company_name": f"P{i}",
                                   "contact_id": make_contact(db, company_id=company.id).id,
                                   "created_by": make_user(db).id} for i in range(n)])

    assert_constant(api, count_queries, exec_user, f"{BASE}/companies/{company.id}/partners", grow,
                    lambda b: len(b["partners"]))
