"""A notice's title quotes the task's title, itself up to 500 characters (the notification title column's length):
core notify cuts a longer title to 500 characters, ending with "…", so that the task's create still succeeds (it was
a 400, "A value is out of range or malformed", for a 500-character title with an assignee)."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import make_user


def test_a_task_with_the_longest_title_is_made_and_its_assignee_told(api, db, exec_user):
    ann = make_user(db)
    title = "T" * 500
    answer = api.post("/api/tasks", as_=exec_user, json={"title": title, "assignee_id": ann.id})
    assert answer.status == 201, answer
    assert answer.json["task"]["title"] == title
    db.expire_all()
    told = db.scalars(select(Notification).where(Notification.user_id == ann.id)).all()
    assert [(n.type, len(n.title), n.title[-1]) for n in told] == [("task_assigned", 500, "\u2026")]
    assert told[0].title.startswith("You were assigned a task: TTT")


def test_the_copy_of_the_longest_title_keeps_its_suffix(api, db, exec_user):
    """The copy has ` (copy)` appended to its title (spec 1): a 500-character title is cut to make room for it (the
    whole suffix was cut off instead, so the copy bore the original's title; conformance audit)."""
    created = api.post("/api/tasks", as_=exec_user, json={"title": "T" * 500})
    assert created.status == 201, created
    copy = api.post(f"/api/tasks/{created.json['task']['id']}/duplicate", as_=exec_user)
    assert copy.status == 201, copy
    assert copy.json["task"]["title"] == "T" * 493 + " (copy)"


def test_a_long_description_in_a_notice_is_marked_as_cut(api, db, exec_user):
    """The assignment notice's body quotes the description's first 500 characters; a longer one ends with "…", as
    every cut text the service sends (it was cut without a mark)."""
    ann = make_user(db)
    answer = api.post("/api/tasks", as_=exec_user, json={"title": "Brief", "assignee_id": ann.id,
                                                          "description": "D" * 600})
    assert answer.status == 201, answer
    db.expire_all()
    (told,) = db.scalars(select(Notification).where(Notification.user_id == ann.id)).all()
    assert (len(told.body), told.body[-1], told.body[:3]) == (500, "\u2026", "DDD")
    short = api.post("/api/tasks", as_=exec_user, json={"title": "Brief 2", "assignee_id": ann.id,
                                                         "description": "D" * 500})
    assert short.status == 201
    db.expire_all()
    bodies = [n.body for n in db.scalars(select(Notification).where(Notification.user_id == ann.id))]
    assert "D" * 500 in bodies  # 500 characters fit whole
