"""Performance notices (notifications audit): the caller is never told of a feedback request they made."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.performance.factories import make_cycle
from tests.factories import make_squad, make_user


def _asked(db, user):
    db.expire_all()
    return db.execute(select(Notification.resource_type, Notification.action_url).where(
        Notification.user_id == user.id, Notification.type == "feedback_requested")).all()


def test_a_caller_asking_themselves_is_not_told(api, db, exec_user):
    cycle, subject = make_cycle(db), make_user(db)
    made = api.post("/api/performance/feedback/requests", as_=exec_user, json={
        "cycle_id": cycle.id, "subject_id": subject.id, "reviewer_id": exec_user.id})
    assert made.status == 201, made
    assert _asked(db, exec_user) == []


def test_a_caller_among_the_peers_is_asked_but_not_told(api, db, exec_user):
    cycle = make_cycle(db)
    squad = make_squad(db)
    caller = make_user(db, access_level="manager", squad_id=squad.id)  # a manager who sits in the squad
    subject = make_user(db, squad_id=squad.id, manager_id=caller.id)
    peer = make_user(db, squad_id=squad.id)
    made = api.post("/api/performance/feedback/requests/bulk", as_=caller,
                    json={"cycle_id": cycle.id, "subject_id": subject.id})
    assert made.status in (200, 201), made
    assert made.json["created"] >= 2  # the caller is one of the subject's peers, and is asked
    assert _asked(db, caller) == []
    assert _asked(db, peer) == [("feedback_request", "/performance/feedback")]
