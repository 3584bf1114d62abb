"""Leave notices (notifications audit): each approval step is told to whoever decides it, even minutes apart."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import make_user

BODY = {"leave_type_id": "annual", "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
        "end_date": "2026-12-03", "total_hours": 22.8}


def _told(db, user, type):
    db.expire_all()
    return db.execute(select(Notification.resource_id, Notification.action_url).where(
        Notification.user_id == user.id, Notification.type == type)).all()


def test_an_executive_told_of_the_first_step_is_told_of_the_second(api, db):
    loner = make_user(db)  # no squad manager: the first step goes to the executives too
    ann = make_user(db, access_level="executive")
    bea = make_user(db, access_level="executive")
    request = api.post("/api/leave/requests", as_=loner, json=BODY).json["request"]
    link = (request["id"], f"/leave/requests/{request['id']}")
    assert _told(db, bea, "leave_requested") == [link]
    step = api.post(f"/api/leave/requests/{request['id']}/approve", as_=ann)
    assert step.status == 200 and step.json["request"]["status"] == "pending_exec"
    # the second step now awaits Bea: she is told again; Ann, who approved, is not
    assert _told(db, bea, "leave_requested") == [link, link]
    assert _told(db, ann, "leave_requested") == [link]
