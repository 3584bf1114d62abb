"""Type catalogue and per-user channel preferences."""
import pytest

from chalicelib.core.notify_catalogue import TYPES
from tests.factories import make_user

REQUIRED_TYPES = {"task_assigned", "todo_assigned", "project_member_added", "meeting_invited", "announcement_published",
                  "leave_requested", "proposal_submitted", "invoice_overdue", "portal_request", "mention",
                  "page_comment", "squad_broadcast"}


@pytest.mark.smoke
def test_types_catalogue_lists_every_type(api, db):
    response = api.get("/api/notifications/types", as_=make_user(db))
    assert response.status == 200
    types = response.json["types"]
    assert REQUIRED_TYPES <= {t["id"] for t in types}
    assigned = next(t for t in types if t["id"] == "task_assigned")
    assert assigned["category"] == "tasks" and assigned["label"] == "Task assigned"
    assert assigned["description"]
    assert assigned["default_channels"] == {"in_app": 1, "email": 0, "chat": 1, "push": 1}


def test_preferences_default_to_the_catalogue(api, db):
    response = api.get("/api/notifications/preferences", as_=make_user(db))
    assert response.status == 200
    preferences = response.json["preferences"]
    assert len(preferences) == len(TYPES)
    invited = next(p for p in preferences if p["notification_type"] == "meeting_invited")
    assert invited == {"notification_type": "meeting_invited", "category": "calendar", "label": "Meeting invitation",
                       "description": invited["description"], "channel_in_app": 1, "channel_email": 1,
                       "channel_chat": 0, "channel_push": 1, "is_customized": False}


def test_update_preferences_merges_overrides(api, db):
    user = make_user(db)
    response = api.put("/api/notifications/preferences", as_=user, json={"preferences": [
        {"notification_type": "task_assigned", "channel_email": True, "channel_chat": False},
        {"notification_type": "mention", "channel_in_app": False, "channel_email": False, "channel_chat": False,
         "channel_push": False, "ignored": "field"},
    ]})
    assert response.status == 200
    assert response.json == {"success": True}
    preferences = {p["notification_type"]: p for p in api.get("/api/notifications/preferences", as_=user).json["preferences"]}
    assert preferences["task_assigned"]["channel_email"] == 1
    assert preferences["task_assigned"]["channel_chat"] == 0
    assert preferences["task_assigned"]["channel_push"] == 1  # left out: keeps its effective value
    assert preferences["task_assigned"]["is_customized"] is True
    assert preferences["mention"]["channel_in_app"] == 0 and preferences["mention"]["is_customized"] is True
    assert preferences["todo_assigned"]["is_customized"] is False
    # another user keeps the defaults
    other = {p["notification_type"]: p for p in api.get("/api/notifications/preferences", as_=make_user(db)).json["preferences"]}
    assert other["task_assigned"]["channel_email"] == 0 and other["task_assigned"]["is_customized"] is False


def test_setting_preferences_back_to_defaults_is_no_longer_customized(api, db):
    user = make_user(db)
    api.put("/api/notifications/preferences", as_=user,
            json={"preferences": [{"notification_type": "task_assigned", "channel_email": True}]})
    api.put("/api/notifications/preferences", as_=user,
            json={"preferences": [{"notification_type": "task_assigned", "channel_email": False}]})
    preferences = {p["notification_type"]: p for p in api.get("/api/notifications/preferences", as_=user).json["preferences"]}
    assert preferences["task_assigned"]["is_customized"] is False


def test_a_type_named_twice_in_one_update_applies_in_order(api, db):
    """Entries apply in order: a second entry for the same type that goes back to the defaults leaves it
    uncustomised (it answered 500: the override made by the first entry was not yet stored)."""
    user = make_user(db)
    response = api.put("/api/notifications/preferences", as_=user, json={"preferences": [
        {"notification_type": "task_assigned", "channel_email": True},
        {"notification_type": "task_assigned", "channel_email": False},
        {"notification_type": "mention", "channel_push": False},
        {"notification_type": "mention", "channel_chat": False}]})
    assert response.status == 200, response
    preferences = {p["notification_type"]: p for p in api.get("/api/notifications/preferences", as_=user).json["preferences"]}
    assert preferences["task_assigned"]["is_customized"] is False and preferences["task_assigned"]["channel_email"] == 0
    assert preferences["mention"]["is_customized"] is True
    assert (preferences["mention"]["channel_push"], preferences["mention"]["channel_chat"]) == (0, 0)


def test_update_preferences_rejects_unknown_type(api, db):
    user = make_user(db)
    response = api.put("/api/notifications/preferences", as_=user,
                       json={"preferences": [{"notification_type": "no_such_type", "channel_email": True}]})
    assert response.status == 400
    assert "no_such_type" in response.json["error"]
    assert response.json["details"]


@pytest.mark.parametrize("body", [{}, {"preferences": "all"}, {"preferences": [{"channel_email": True}]},
                                  {"preferences": [{"notification_type": "mention", "channel_email": "maybe"}]},
                                  # channel flags are true/false or 1/0 only (issue 9 item 3)
                                  {"preferences": [{"notification_type": "mention", "channel_email": "yes"}]},
                                  {"preferences": [{"notification_type": "mention", "channel_push": "on"}]},
                                  {"preferences": [{"notification_type": "mention", "channel_chat": "true"}]}])
def test_update_preferences_rejects_bad_bodies(api, db, body):
    response = api.put("/api/notifications/preferences", as_=make_user(db), json=body)
    assert response.status == 400
    assert "error" in response.json


def test_update_preferences_rejects_non_json(api, db):
    response = api.put("/api/notifications/preferences", as_=make_user(db), body=b"not json",
                       headers={"Content-Type": "application/json"})
    assert response.status == 400

