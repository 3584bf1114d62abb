"""Session 27: a user's notification preferences and a squad's notification config are written as a set (one DELETE
of the rows that change, one multi-row INSERT of their new values), not one ORM row at a time (pg8000 runs an
executemany row by row: docs/decisions.md, "Bulk writes"). A save costs the same statements at 2 types and at every
type of the catalogue, counted as SQLAlchemy sends them (`count_queries`) and as the driver runs them
(`driver_statements`); the answers are checked after each save."""
import pytest
from sqlalchemy import select

from chalicelib.core.notify_catalogue import TYPES
from chalicelib.core.notify_models import (
    NotificationPreference,
    SquadNotificationConfig,
)
from tests.factories import make_squad, make_user

PREFERENCES = "/api/notifications/preferences"
CHANNELS = ("in_app", "email", "chat", "push")


def _counter(kind, count_queries, driver_statements):
    if kind == "sqlalchemy":
        def count(call):
            with count_queries() as counter:
                answer = call()
            return counter.count, answer
    else:
        def count(call):
            statements, answer = driver_statements(call)
            return len(statements), answer
    return count


@pytest.fixture(params=["sqlalchemy", "driver"])
def count(request, count_queries):
    if request.param == "driver":
        return _counter("driver", None, request.getfixturevalue("driver_statements"))
    return _counter("sqlalchemy", count_queries, None)


def _entry(item, **flipped) -> dict:
    channels = item.defaults()
    for name, on in flipped.items():
        if on:
            channels[name] = not channels[name]
    return {"notification_type": item.id, **{f"channel_{name}": value for name, value in channels.items()}}


def _preferences(api, user) -> dict:
    return {p["notification_type"]: p for p in api.get(PREFERENCES, as_=user).json["preferences"]}


def _save(api, user, entries):
    saved = api.put(PREFERENCES, as_=user, json={"preferences": entries})
    assert saved.status == 200, saved


def _effective(entry) -> dict:
    return {f"channel_{name}": int(entry[f"channel_{name}"]) for name in CHANNELS}


def test_preferences_save_costs_the_same_at_two_types_and_at_all(api, db, count):
    user = make_user(db)
    _save(api, user, [_entry(item, chat=True) for item in TYPES])  # every type stored (customised)
    counts = []
    for flip_email in (True, False):  # rows updated (email flipped), then rows updated back
        for items in (TYPES[:2], TYPES):
            entries = [_entry(item, chat=True, email=flip_email) for item in items]
            n, _ = count(lambda entries=entries: _save(api, user, entries))
            counts.append(n)
            stored = _preferences(api, user)
            for entry in entries:
                assert {k: v for k, v in stored[entry["notification_type"]].items() if k.startswith("channel_")} \
                    == _effective(entry)
                assert stored[entry["notification_type"]]["is_customized"] is True
        _save(api, user, [_entry(item, chat=True, email=flip_email) for item in TYPES])  # all alike again
    for items in (TYPES[:2], TYPES[2:]):  # back to the defaults: the rows removed
        n, _ = count(lambda items=items: _save(api, user, [_entry(item) for item in items]))
        counts.append(n)
    assert not any(p["is_customized"] for p in _preferences(api, user).values())
    db.expire_all()
    assert db.scalars(select(NotificationPreference).where(NotificationPreference.user_id == user.id)).all() == []
    assert counts[0] == counts[1] and counts[2] == counts[3] and counts[4] == counts[5], counts


def test_preferences_new_rows_and_a_type_named_twice(api, db):
    user = make_user(db)
    first, second = TYPES[0], TYPES[1]
    _save(api, user, [{"notification_type": first.id, "channel_email": not first.email},
                      {"notification_type": first.id, "channel_chat": not first.chat},
                      {"notification_type": second.id, "channel_push": not second.push},
                      {"notification_type": second.id, "channel_push": second.push}])  # back to its defaults
    stored = _preferences(api, user)
    assert stored[first.id]["is_customized"] is True
    assert (stored[first.id]["channel_email"], stored[first.id]["channel_chat"]) == (int(not first.email),
                                                                                     int(not first.chat))
    assert stored[second.id]["is_customized"] is False


# ---------------------------------------------------------------- a squad's config

def _config_path(squad) -> str:
    return f"/api/notifications/squads/{squad.id}/config"


def _put_config(api, user, squad, entries) -> int:
    saved = api.put(_config_path(squad), as_=user, json={"config": entries})
    assert saved.status == 200, saved
    return saved.json["updated"]


def _config(api, user, squad) -> dict:
    return {c["notification_type"]: c for c in api.get(_config_path(squad), as_=user).json["config"]}


def test_squad_config_save_costs_the_same_at_two_types_and_at_all(api, db, exec_user, count):
    squad = make_squad(db)
    _put_config(api, exec_user, squad, [{"notification_type": item.id, "chat_channel_id": "C0"} for item in TYPES])
    counts = []
    for round_ in (1, 2):
        for items in (TYPES[:2], TYPES):
            entries = [{"notification_type": item.id, "chat_channel_id": f"C{round_}-{len(items)}",
                        "email_group": f"team{round_}@example.test", "enabled": round_ == 2} for item in items]
            n, updated = count(lambda entries=entries: _put_config(api, exec_user, squad, entries))
            assert updated == len(entries)
            counts.append(n)
            config = _config(api, exec_user, squad)
            for entry in entries:
                assert config[entry["notification_type"]] == {
                    **config[entry["notification_type"]], "chat_channel_id": entry["chat_channel_id"],
                    "email_group": entry["email_group"], "enabled": int(entry["enabled"])}
    assert counts[0] == counts[1] and counts[2] == counts[3], counts


def test_squad_config_new_rows_a_type_named_twice_and_rows_sent_back(api, db, exec_user):
    squad = make_squad(db)
    first, second = TYPES[0], TYPES[1]
    updated = _put_config(api, exec_user, squad, [
        {"notification_type": first.id, "chat_channel_id": "C1"},
        {"notification_type": first.id, "chat_channel_id": "C2", "enabled": False},
        {"notification_type": second.id, "email_group": "g@example.test"}])
    assert updated == 3  # the entries sent, as before
    config = _config(api, exec_user, squad)
    assert (config[first.id]["chat_channel_id"], config[first.id]["enabled"]) == ("C2", 0)
    assert (config[second.id]["email_group"], config[second.id]["chat_channel_id"]) == ("g@example.test", None)
    db.expire_all()
    stamps = {row.notification_type: row.updated_at for row in db.scalars(
        select(SquadNotificationConfig).where(SquadNotificationConfig.squad_id == squad.id))}
    assert set(stamps) == {first.id, second.id}
    _put_config(api, exec_user, squad, [{"notification_type": first.id, "chat_channel_id": "C2", "enabled": False}])
    db.expire_all()
    again = {row.notification_type: row.updated_at for row in db.scalars(
        select(SquadNotificationConfig).where(SquadNotificationConfig.squad_id == squad.id))}
    assert again == stamps  # a row sent back as stored is not rewritten
