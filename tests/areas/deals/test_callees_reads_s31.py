"""Session 31: the sales directory's callees (the functions other areas call to name or show a company, contact or
deal) ask `ctx.reads("deals")`, as every other area's callees do (core.Context.reads, session 29): a caller without
`deals:view` neither names nor sees one, and a job's context (no principal) sees them all. They asked `ctx.can`, so a
job's context saw none (no job called them yet)."""
import pytest

from chalicelib.areas.deals import service
from chalicelib.core.context import job_context
from chalicelib.core.auth import principals_of
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.factories import grant, make_user


@pytest.fixture
def records(db):
    company = make_company(db)
    contact = make_contact(db, company_id=company.id)
    deal = make_deal(db, company_id=company.id)
    db.commit()
    return {"company": company.id, "contact": contact.id, "deal": deal.id}


CALLEES = {"company": (service.company_seen, service.link_company), "contact": (service.contact_seen,),
           "deal": (service.deal_seen, service.link_deal)}


def test_a_jobs_context_sees_and_names_every_record(records):
    with job_context() as ctx:
        assert all(callee(ctx, records[kind]) for kind, callees in CALLEES.items() for callee in callees)
        assert service.unseen_references(ctx, {"company_id": records["company"], "deal_id": records["deal"]},
                                         ("company_id", "contact_id", "deal_id"), lambda field: True) == []


def test_a_caller_without_deals_view_sees_none(db, records):
    employee = make_user(db, access_level="employee")
    grant(db, employee, "deals", "none")
    db.commit()
    with job_context(principals_of(db, [employee.id])[employee.id]) as ctx:
        assert not ctx.can("deals", "view")
        assert not any(callee(ctx, records[kind]) for kind, callees in CALLEES.items() for callee in callees)
