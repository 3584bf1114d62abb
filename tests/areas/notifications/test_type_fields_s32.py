"""Session 32, audit "error bodies that name the wrong field": an unknown notification type in a preferences or
squad config entry is a 400 naming its entry, `preferences.<index>.notification_type` (`config.<index>...`), as the
core names a list member's field and as the portal's preferences name it; it named `preferences.notification_type`,
no field of the body, so a client could not tell which entry was wrong."""
from tests.factories import make_squad, make_user


def test_an_unknown_type_names_its_entry(api, db, exec_user):
    user = make_user(db)
    answer = api.put("/api/notifications/preferences", as_=user, json={"preferences": [
        {"notification_type": "task_assigned", "channel_email": True}, {"notification_type": "nope"},
        {"notification_type": "mention"}, {"notification_type": "nope"}, {"notification_type": "other"}]})
    assert answer.status == 400 and answer.json["details"] == [
        {"field": "preferences.1.notification_type", "message": "unknown type nope"},
        {"field": "preferences.3.notification_type", "message": "unknown type nope"},
        {"field": "preferences.4.notification_type", "message": "unknown type other"}], answer.json
    squad = make_squad(db)
    config = api.put(f"/api/notifications/squads/{squad.id}/config", as_=exec_user, json={"config": [
        {"notification_type": "nope"}]})
    assert config.status == 400 and config.json["details"] == [
        {"field": "config.0.notification_type", "message": "unknown type nope"}], config.json
