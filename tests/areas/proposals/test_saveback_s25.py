"""Session 25 (save-back audit): an update checks only the references it changes. An approver deactivated (or who
lost proposals:update) since being listed stays listed (docs/decisions/proposals.md), so the detail PUT back as read,
with another title or valid_until, must not answer 400 on `approver_ids`; a list that adds someone checks only the
added ids, and the repeat and owner rules still hold for the whole list."""
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.proposals.factories import create
from tests.factories import grant, make_user

FIELDS = ("title", "deal_id", "company_id", "contact_id", "valid_until", "currency", "speaker_notes", "brand_config",
          "approver_ids")


def _read(api, pid, user) -> dict:
    answer = api.get(f"/api/proposals/{pid}", as_=user)
    assert answer.status == 200, answer
    return answer.json["proposal"]


def _body(proposal: dict, **changes) -> dict:
    return {**{key: proposal[key] for key in FIELDS}, **changes}


def _listed(api, pid, user) -> list[str]:
    return sorted(_read(api, pid, user)["approver_ids"])


def test_detail_saved_back_with_a_deactivated_approver(api, db, employee):
    gone, other = make_user(db, access_level="manager"), make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[gone.id, other.id])
    gone.is_active = False
    db.flush()
    proposal = _read(api, pid, employee)
    # the stored list, in another order: the same list
    body = _body(proposal, title="Renamed", valid_until="2031-06-30", approver_ids=[other.id, gone.id])
    answer = api.put(f"/api/proposals/{pid}", as_=employee, json=body)
    assert answer.status == 200, answer
    after = _read(api, pid, employee)
    assert (after["title"], after["valid_until"]) == ("Renamed", "2031-06-30")
    assert sorted(after["approver_ids"]) == sorted([gone.id, other.id])  # stays listed until the list changes
    entry = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == pid,
                                                  HistoryEntry.action == "updated")).one()
    assert set(entry.changes) == {"title", "valid_until"}  # the list sent back is no change


def test_detail_saved_back_with_an_approver_who_lost_update(api, db, employee):
    demoted = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[demoted.id])
    grant(db, demoted, "proposals", "view")
    answer = api.put(f"/api/proposals/{pid}", as_=employee, json=_body(_read(api, pid, employee), title="Renamed"))
    assert answer.status == 200, answer
    assert _read(api, pid, employee)["title"] == "Renamed"


def test_adding_an_approver_checks_only_the_added_ids(api, db, employee):
    gone, added, inactive = (make_user(db, access_level="manager") for _ in range(3))
    pid = create(api, employee, approver_ids=[gone.id])
    gone.is_active = False
    inactive.is_active = False
    db.flush()
    refused = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [gone.id, inactive.id]})
    assert refused.status == 400, refused
    assert refused.json["details"] == [{"field": "approver_ids", "message": f"must be active users ({inactive.id})"}]
    answer = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [gone.id, added.id]})
    assert answer.status == 200, answer
    assert _listed(api, pid, employee) == sorted([gone.id, added.id])


def test_repeat_and_owner_rules_still_apply_to_the_whole_list(api, db, employee):
    approver = make_user(db, access_level="manager")
    pid = create(api, employee, approver_ids=[approver.id])
    approver.is_active = False
    db.flush()
    repeated = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [approver.id, approver.id]})
    assert repeated.status == 400, repeated
    assert repeated.json["details"] == [{"field": "approver_ids", "message": "must not repeat a user"}]
    owner = api.put(f"/api/proposals/{pid}", as_=employee, json={"approver_ids": [approver.id, employee.id]})
    assert owner.status == 400, owner
    assert owner.json["details"] == [{"field": "approver_ids", "message": "must not name the proposal's owner"}]
    assert _listed(api, pid, employee) == [approver.id]


def test_references_sent_back_pass_and_changed_ones_are_checked(api, db, employee):
    """A guard of the rule's other half (stored company, contact and deal are foreign keys, so a stored one always
    exists): the detail PUT back as read answers 200, a changed reference to nothing is still a 400 naming it."""
    company = make_company(db)
    deal, contact = make_deal(db, company_id=company.id), make_contact(db, company_id=company.id)
    pid = create(api, employee, company_id=company.id, deal_id=deal.id, contact_id=contact.id)
    answer = api.put(f"/api/proposals/{pid}", as_=employee, json=_body(_read(api, pid, employee), title="Renamed"))
    assert answer.status == 200, answer
    nothing = "00000000-0000-0000-0000-000000000000"
    refused = api.put(f"/api/proposals/{pid}", as_=employee,
                      json={"company_id": nothing, "deal_id": nothing, "contact_id": nothing})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["company_id", "contact_id", "deal_id"]
    after = _read(api, pid, employee)
    assert (after["company_id"], after["deal_id"], after["contact_id"]) == (company.id, deal.id, contact.id)
