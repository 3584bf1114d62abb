"""Deal notices (catalogue type `deal_assigned`, docs/decisions/deals.md "Notifications"): a deal made with, or
changed to, an owner other than the caller tells that owner; the deal's title, company and link only to an owner
who holds `deals:view`; a write that leaves the owner as it was tells nobody; document 3's 5-minute
de-duplication (same user, type and resource) holds for a deal handed back within minutes."""
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.factories import grant, make_user

from .factories import make_company, make_deal


def _told(db, user) -> list[tuple]:
    """The user's `deal_assigned` notices: (title, body, resource_type, resource_id, action_url, actor_id)."""
    db.expire_all()
    return db.execute(select(Notification.title, Notification.body, Notification.resource_type,
                             Notification.resource_id, Notification.action_url, Notification.actor_id)
                      .where(Notification.user_id == user.id, Notification.type == "deal_assigned")
                      .order_by(Notification.created_at)).all()


def _age(db, *users) -> None:
    """The users' notifications made 6 minutes ago: past the de-duplication window."""
    db.execute(update(Notification).where(Notification.user_id.in_([u.id for u in users]))
               .values(created_at=utcnow() - timedelta(minutes=6)))
    db.flush()


def _told_of(deal: dict, actor, company_name: str | None = None) -> tuple:
    return (f"You were assigned a deal: {deal['title']}", f"Company: {company_name}" if company_name else None,
            "deal", deal["id"], f"/deals/{deal['id']}", actor.id)


def test_a_deal_made_for_someone_else_tells_its_owner_and_not_the_caller(api, db, exec_user):
    ann = make_user(db)
    acme = make_company(db, name="Acme")
    deal = api.post("/api/deals/deals", json={"title": "Retainer", "company_id": acme.id, "owner_id": ann.id},
                    as_=exec_user).json["deal"]
    assert _told(db, ann) == [_told_of(deal, exec_user, "Acme")]
    # the caller's own deals (the default owner, or named) tell nobody; a deal of no owner neither
    for body in ({"title": "Mine"}, {"title": "Mine too", "owner_id": exec_user.id}, {"title": "Nobody's",
                                                                                       "owner_id": None}):
        assert api.post("/api/deals/deals", json=body, as_=exec_user).status == 201
    assert _told(db, exec_user) == []
    assert len(_told(db, ann)) == 1


def test_an_owner_change_tells_the_new_owner_only_when_the_owner_changes(api, db, exec_user):
    ann, bob = make_user(db), make_user(db)
    deal = api.get(f"/api/deals/deals/{make_deal(db, owner_id=ann.id).id}", as_=exec_user).json["deal"]
    # the whole record sent back, another field changed: the owner did not change, nobody is told
    response = api.put(f"/api/deals/deals/{deal['id']}", json={**deal, "title": "Renewal"}, as_=exec_user)
    assert response.status == 200, response
    assert _told(db, ann) == []

    deal = api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": bob.id}, as_=exec_user).json["deal"]
    assert _told(db, bob) == [_told_of(deal, exec_user)] and _told(db, ann) == []
    _age(db, bob)  # past the window: only the unchanged owner can keep a second notice away now
    assert api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": bob.id, "status": "won"},
                   as_=exec_user).status == 200
    assert len(_told(db, bob)) == 1
    # given to the caller, or to nobody: nobody is told
    for owner_id in (exec_user.id, None):
        assert api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": owner_id}, as_=exec_user).status == 200
    assert _told(db, exec_user) == [] and len(_told(db, bob)) == 1


def test_a_deal_handed_back_within_five_minutes_tells_its_owner_once(api, db, exec_user):
    ann, bob = make_user(db), make_user(db)
    deal = api.post("/api/deals/deals", json={"title": "Pilot", "owner_id": ann.id}, as_=exec_user).json["deal"]
    for owner in (bob, ann):
        assert api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": owner.id}, as_=exec_user).status == 200
    # Ann's second assignment within 5 minutes is de-duplicated by core notify (document 3)
    assert _told(db, ann) == [_told_of(deal, exec_user)] and _told(db, bob) == [_told_of(deal, exec_user)]
    _age(db, ann, bob)
    for owner in (bob, ann):
        assert api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": owner.id}, as_=exec_user).status == 200
    assert len(_told(db, ann)) == 2 and len(_told(db, bob)) == 2


def test_an_owner_without_deals_view_is_told_only_that_a_deal_was_given_to_them(api, db, exec_user):
    carl = make_user(db)
    grant(db, carl, "deals", "none")
    acme = make_company(db, name="Acme")
    deal = api.post("/api/deals/deals", json={"title": "Secret merger", "company_id": acme.id},
                    as_=exec_user).json["deal"]
    assert api.put(f"/api/deals/deals/{deal['id']}", json={"owner_id": carl.id}, as_=exec_user).status == 200
    # no title, company or link: carl cannot open the deal
    assert _told(db, carl) == [("You were assigned a deal", None, "deal", deal["id"], None, exec_user.id)]
