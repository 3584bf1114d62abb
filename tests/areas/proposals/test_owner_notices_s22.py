"""Session 22 (notifications audit): a proposal's owner is told of it (viewed, accepted, declined, approved, changes
requested) only while they may read it: active and holding proposals:view, as the approvers told of a submit. An
owner whose permission was lowered since was told the title."""
from sqlalchemy import select

from chalicelib.areas.proposals.models import Proposal
from chalicelib.core.notify import Notification
from tests.areas.proposals.factories import create, sent
from tests.factories import grant, make_user

PUBLIC = "/api/proposals/public"


def _told(db, user):
    return db.scalars(select(Notification.type).where(Notification.user_id == user.id)).all()


def _shared_to(api, db, exec_user, owner, status="sent"):
    pid = sent(api, exec_user, title="Secret pitch for Globex")
    db.get(Proposal, pid).owner_id = owner.id
    db.get(Proposal, pid).status = status
    db.flush()
    return pid, api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True}).json["share_token"]


def test_public_events_tell_an_owner_only_while_they_may_read_it(api, db, exec_user):
    for lowered in (True, False):
        owner = make_user(db, access_level="employee")
        if lowered:
            grant(db, owner, "proposals", "none")
        viewed, token = _shared_to(api, db, exec_user, owner)
        assert api.get(f"{PUBLIC}/{token}").status == 200
        _, accepted = _shared_to(api, db, exec_user, owner)
        assert api.post(f"{PUBLIC}/{accepted}/accept", json={"name": "Ann", "email": "ann@x.test"}).status == 200
        _, declined = _shared_to(api, db, exec_user, owner)
        assert api.post(f"{PUBLIC}/{declined}/decline", json={"name": "Ann", "email": "ann@x.test"}).status == 200
        expected = [] if lowered else ["proposal_accepted", "proposal_declined", "proposal_viewed"]
        assert sorted(_told(db, owner)) == expected, (lowered, _told(db, owner))


def test_approval_moves_tell_an_owner_only_while_they_may_read_it(api, db, exec_user):
    for lowered in (True, False):
        owner = make_user(db, access_level="manager")
        approved = create(api, owner, approver_ids=[exec_user.id])
        changes = create(api, owner, approver_ids=[exec_user.id])
        for pid in (approved, changes):
            assert api.post(f"/api/proposals/{pid}/submit", as_=owner, json={}).status == 200
        if lowered:
            grant(db, owner, "proposals", "none")
        assert api.post(f"/api/proposals/{approved}/approve", as_=exec_user, json={}).status == 200
        assert api.post(f"/api/proposals/{changes}/request-changes", as_=exec_user,
                        json={"comments": "Lower the price"}).status == 200
        expected = [] if lowered else ["proposal_approved", "proposal_changes_requested"]
        assert sorted(_told(db, owner)) == expected, (lowered, _told(db, owner))


def test_an_inactive_owner_is_not_told(api, db, exec_user):
    owner = make_user(db, access_level="employee")
    _, token = _shared_to(api, db, exec_user, owner)
    owner.is_active = False
    db.flush()
    assert api.get(f"{PUBLIC}/{token}").status == 200
    assert _told(db, owner) == []
