"""Session 25 (audit "events that reach nobody"): a client's decline or first view of a proposal told only its owner,
and the hourly expiry told nobody at all. Now, when the owner is not told (inactive, or may not read the proposal),
the first reader of the proposal among the deal's owner and the company's owner is; the expiry tells
`proposal_expired` the same way, once per expired proposal, in a fixed number of statements
(docs/decisions/proposals.md, session 25)."""
from datetime import timedelta

from sqlalchemy import select

from chalicelib.areas.proposals import jobs
from chalicelib.areas.proposals.models import Proposal
from chalicelib.core.notify import Notification
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_company, make_deal
from tests.areas.proposals.factories import PUBLIC, create, sent_and_shared
from tests.factories import deactivate, grant, make_user

DECLINE = {"name": "Ann", "email": "ann@acme.test", "reason": "Too expensive"}


def _told(db, type, resource_id=None) -> list:
    db.expire_all()
    stmt = select(Notification).where(Notification.type == type)
    if resource_id:
        stmt = stmt.where(Notification.resource_id == resource_id)
    return db.scalars(stmt).all()


def _told_ids(db, type, resource_id=None) -> list:
    return [n.user_id for n in _told(db, type, resource_id)]


# ---------------------------------------------------------------- decline and first view

def test_decline_with_the_owner_gone_tells_the_company_owner(api, db):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="executive", name="Carl Company")
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    deactivate(db, owner)
    answer = api.post(f"{PUBLIC}/{token}/decline", json=DECLINE)
    assert answer.status == 200, answer
    notices = _told(db, "proposal_declined")
    assert [n.user_id for n in notices] == [boss.id]
    notice = notices[0]
    assert (notice.resource_type, notice.resource_id, notice.action_url) == ("proposal", pid, f"/proposals/{pid}")
    assert notice.title == "Proposal declined: Website rebuild" and notice.body == "Too expensive"
    assert api.get(f"/api/proposals/{pid}", as_=boss).status == 200  # the link opens for them


def test_decline_with_the_owner_gone_tells_the_deal_owner_first(api, db):
    owner = make_user(db, access_level="executive")
    seller, boss = make_user(db, access_level="executive"), make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    deal = make_deal(db, company_id=company.id, owner_id=seller.id)
    _, token = sent_and_shared(api, owner, company_id=company.id, deal_id=deal.id)
    deactivate(db, owner)
    assert api.post(f"{PUBLIC}/{token}/decline", json=DECLINE).status == 200
    assert _told_ids(db, "proposal_declined") == [seller.id]


def test_a_deal_owner_who_may_not_read_it_is_passed_over_for_the_company_owner(api, db):
    owner = make_user(db, access_level="executive")
    seller = make_user(db, access_level="employee")  # sees only the proposals they own
    boss = make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    deal = make_deal(db, company_id=company.id, owner_id=seller.id)
    _, token = sent_and_shared(api, owner, company_id=company.id, deal_id=deal.id)
    deactivate(db, owner)
    assert api.post(f"{PUBLIC}/{token}/decline", json=DECLINE).status == 200
    assert _told_ids(db, "proposal_declined") == [boss.id]


def test_an_owner_who_may_no_longer_read_it_is_replaced_by_a_reader(api, db):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    _, token = sent_and_shared(api, owner, company_id=company.id)
    grant(db, owner, "proposals", "none")
    assert api.post(f"{PUBLIC}/{token}/decline", json=DECLINE).status == 200
    assert _told_ids(db, "proposal_declined") == [boss.id]


def test_an_active_owner_is_told_alone(api, db):
    owner = make_user(db, access_level="executive")
    seller, boss = make_user(db, access_level="executive"), make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    deal = make_deal(db, company_id=company.id, owner_id=seller.id)
    _, token = sent_and_shared(api, owner, company_id=company.id, deal_id=deal.id)
    assert api.post(f"{PUBLIC}/{token}/decline", json=DECLINE).status == 200
    assert _told_ids(db, "proposal_declined") == [owner.id]


def test_no_reader_anywhere_tells_nobody(api, db):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="employee")  # the company's owner, not the proposal's: no reader
    company = make_company(db, owner_id=boss.id)
    _, token = sent_and_shared(api, owner, company_id=company.id)
    deactivate(db, owner)
    assert api.post(f"{PUBLIC}/{token}/decline", json=DECLINE).status == 200
    assert _told_ids(db, "proposal_declined") == []


def test_first_view_with_the_owner_gone_tells_the_company_owner(api, db):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    deactivate(db, owner)
    answer = api.get(f"{PUBLIC}/{token}")
    assert answer.status == 200 and answer.json["proposal"]["status"] == "viewed", answer
    assert _told_ids(db, "proposal_viewed", pid) == [boss.id]
    assert api.get(f"{PUBLIC}/{token}").status == 200  # a second view: no new notice
    assert _told_ids(db, "proposal_viewed", pid) == [boss.id]


# ---------------------------------------------------------------- expiry

def _past_due(api, db, owner, size=1, **body) -> list[str]:
    past = (org_today() - timedelta(days=2)).isoformat()
    ids = [create(api, owner, valid_until=past, **body) for _ in range(size)]
    for pid in ids:
        db.get(Proposal, pid).status = "sent"
    db.flush()
    return ids


def test_expiry_tells_the_owner_once(api, db):
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    pids = _past_due(api, db, owner, size=2, company_id=company.id)
    assert jobs.proposal_expiry() == {"expired": 2}
    notices = _told(db, "proposal_expired")
    assert sorted((n.user_id, n.resource_id) for n in notices) == sorted((owner.id, pid) for pid in pids)
    notice = notices[0]
    assert (notice.resource_type, notice.action_url) == ("proposal", f"/proposals/{notice.resource_id}")
    assert notice.title == "Proposal expired: Website rebuild" and notice.actor_id is None
    assert jobs.proposal_expiry() == {"expired": 0}  # run twice: told once
    assert len(_told(db, "proposal_expired")) == 2


def test_expiry_with_the_owner_gone_tells_the_deal_or_company_owner(api, db):
    owner = make_user(db, access_level="executive")
    seller, boss = make_user(db, access_level="executive"), make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    deal = make_deal(db, company_id=company.id, owner_id=seller.id)
    [with_deal] = _past_due(api, db, owner, company_id=company.id, deal_id=deal.id)
    [without] = _past_due(api, db, owner, company_id=company.id)
    [nobody] = _past_due(api, db, owner)
    deactivate(db, owner)
    assert jobs.proposal_expiry() == {"expired": 3}
    assert sorted((n.resource_id, n.user_id) for n in _told(db, "proposal_expired")) == sorted(
        [(with_deal, seller.id), (without, boss.id)])
    assert jobs.proposal_expiry() == {"expired": 0}
    assert len(_told(db, "proposal_expired")) == 2


def test_expiry_tells_in_the_same_statements_for_3_and_30(api, db, driver_statements, aws):
    """Owners active and gone, company owners who read the proposal and who do not: the same statements at any size
    (no per-row reads). `aws`: the deliveries go to the (moto) queue after commit, as deployed, not inline."""
    counts = []
    for size in (3, 30):
        owner, boss, stranger = (make_user(db, access_level=level) for level in ("executive", "manager", "manager"))
        gone = make_user(db, access_level="employee", manager_id=boss.id)  # the boss's report: in their reach
        ours, theirs = make_company(db, owner_id=boss.id), make_company(db, owner_id=stranger.id)
        told = _past_due(api, db, owner, size=size, company_id=theirs.id)
        passed_on = _past_due(api, db, gone, size=size, company_id=ours.id)
        untold = _past_due(api, db, gone, size=size, company_id=theirs.id)
        deactivate(db, gone)
        statements, answer = driver_statements(jobs.proposal_expiry)
        assert answer == {"expired": 3 * size}
        counts.append(len(statements))
        by_proposal = {n.resource_id: n.user_id for n in _told(db, "proposal_expired")}
        assert [by_proposal.get(pid) for pid in told] == [owner.id] * size
        assert [by_proposal.get(pid) for pid in passed_on] == [boss.id] * size
        assert [by_proposal.get(pid) for pid in untold] == [None] * size  # the stranger may not read them
    assert counts[0] == counts[1], counts


def test_the_public_viewer_expiring_it_tells_the_owner(api, db):
    owner = make_user(db, access_level="executive")
    pid, token = sent_and_shared(api, owner)
    db.get(Proposal, pid).valid_until = org_today() - timedelta(days=1)
    db.flush()
    answer = api.get(f"{PUBLIC}/{token}")
    assert answer.status == 200 and answer.json["proposal"]["status"] == "expired", answer
    assert _told_ids(db, "proposal_expired", pid) == [owner.id]
    assert jobs.proposal_expiry() == {"expired": 0}
    assert _told_ids(db, "proposal_expired", pid) == [owner.id]
