"""Session 29, code no test ran (coverage audit): a birthday cleared, an undated life event with auto-actions on,
a client's partner cap."""
from sqlalchemy import func, insert, select

from chalicelib.areas.relationships.models import LifeEvent, Partner, RelationshipAction
from chalicelib.core.query import LIST_LIMIT
from tests.areas.deals.factories import make_contact

BASE = "/api/relationships"


def test_a_birthday_is_cleared_by_an_empty_string_or_null(api, db, employee):
    contact = make_contact(db)
    path = f"{BASE}/contacts/{contact.id}/relationship"
    assert api.patch(path, as_=employee, json={"birthday": "03-14"}).json["profile"]["birthday"] == "03-14"
    cleared = api.patch(path, as_=employee, json={"birthday": ""})
    assert cleared.status == 200, cleared
    assert cleared.json["profile"]["birthday"] is None
    assert api.patch(path, as_=employee, json={"birthday": "1980-02-29"}).json["profile"]["birthday"] == "1980-02-29"
    nulled = api.patch(path, as_=employee, json={"birthday": None})
    assert nulled.status == 200 and nulled.json["profile"]["birthday"] is None


def test_an_undated_event_with_auto_actions_on_makes_no_action_until_dated(api, db, employee):
    contact = make_contact(db)
    path = f"{BASE}/contacts/{contact.id}/life-events"
    made = api.post(path, as_=employee, json={"event_type": "birthday", "title": "Birthday", "recurs_annually": True})
    assert made.status == 201, made
    event = made.json["event"]
    assert event["auto_action_enabled"] == 1 and event["event_date"] is None
    count = select(func.count()).select_from(RelationshipAction).where(RelationshipAction.life_event_id == event["id"])
    assert db.scalar(count) == 0
    edited = api.patch(f"{path}/{event['id']}", as_=employee, json={"title": "Her birthday"})
    assert edited.status == 200, edited
    assert db.scalar(count) == 0
    assert db.get(LifeEvent, event["id"]).event_date is None


def test_a_client_holds_at_most_the_list_limit_of_partners(api, db, employee):
    made = api.post("/api/deals/companies", as_=employee, json={"name": "Client Co", "status": "client"})
    company_id = made.json["company"]["id"]
    db.execute(insert(Partner), [{"id": f"p-{n:04d}", "company_id": company_id, "partner_company_name": f"P{n}"}
                                 for n in range(LIST_LIMIT - 1)])
    db.flush()
    path = f"{BASE}/companies/{company_id}/partners"
    last = api.post(path, as_=employee, json={"partner_company_name": "Last one"})
    assert last.status == 201, last
    refused = api.post(path, as_=employee, json={"partner_company_name": "One too many"})
    assert refused.status == 409, refused
    assert refused.json == {"error": f"A client holds at most {LIST_LIMIT} partners"}
    assert db.scalar(select(func.count()).select_from(Partner).where(Partner.company_id == company_id)) == LIST_LIMIT
    assert len(api.get(path, as_=employee).json["partners"]) == LIST_LIMIT  # every one listed
