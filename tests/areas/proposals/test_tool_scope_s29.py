"""Session 29 (another area's record, seen with that area's permission): companies, contacts and deals are seen by
"every holder of `deals:view`" (decisions.md section 5), and a proposal's `company_id`, `contact_id` and `deal_id`
must name one that exists (docs/decisions/proposals.md). They were checked by their existence alone: a holder of
proposals:update whose `deals` permission is none (an override) addressed a proposal to any company, contact or deal,
learning which ids exist and, through the template's variables, their names, though every deals route answers them
403. Now such a reference needs `deals:view` as well (400 naming the field otherwise), as budgets' deal resource and
meetings' matches (session 28) do."""
import pytest

from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.proposals.factories import create
from tests.factories import grant, make_user


@pytest.mark.parametrize("field", ["company_id", "contact_id", "deal_id"])
def test_a_proposal_cannot_name_a_deals_record_of_a_caller_who_may_not_view_deals(api, db, field):
    head = make_user(db, access_level="head")
    record = {"company_id": make_company, "contact_id": make_contact, "deal_id": make_deal}[field](db)
    grant(db, head, "deals", "none")  # an override: this head may not view deals, companies or contacts
    assert api.get("/api/deals/companies", as_=head).status == 403
    refused = api.post("/api/proposals", as_=head, json={"title": "Rebuild", field: record.id})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == [field]
    pid = create(api, head)
    moved = api.put(f"/api/proposals/{pid}", as_=head, json={field: record.id})
    assert moved.status == 400, moved
    assert [d["field"] for d in moved.json["details"]] == [field]
    # with deals:view the same head addresses it
    grant(db, head, "deals", "view")
    assert api.post("/api/proposals", as_=head, json={"title": "Rebuild", field: record.id}).status == 201
    assert api.put(f"/api/proposals/{pid}", as_=head, json={field: record.id}).status == 200
