"""`action_item_assigned` quotes the item's title only to an assignee who may open the action centre (session 22's
notifications audit: an assignee whose `action-centre` permission was lowered to none was told the title)."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import grant, make_user


def _told(db, user):
    return [(n.title, n.action_url) for n in db.scalars(select(Notification).where(Notification.user_id == user.id))]


def test_an_assignee_who_may_not_open_the_action_centre_is_told_without_the_title(db, api, exec_user):
    assignee = make_user(db, access_level="employee")
    grant(db, assignee, "action-centre", "none")
    answer = api.post("/api/action-items", as_=exec_user, json={"title": "Chase Globex about the overdue contract",
                                                               "assigned_to": assignee.id})
    assert answer.status == 201, answer
    assert api.get("/api/action-items", as_=assignee).status == 403
    assert _told(db, assignee) == [("You were assigned an action item", None)]


def test_an_assignee_who_may_open_it_is_told_the_title(db, api, exec_user):
    assignee = make_user(db, access_level="employee")
    assert api.post("/api/action-items", as_=exec_user, json={"title": "Call Ana", "assigned_to": assignee.id}
                    ).status == 201
    assert _told(db, assignee) == [("You were assigned an action item: Call Ana", "/action-centre")]
