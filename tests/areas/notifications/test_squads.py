"""Squad notification configuration (executive only) and notify_squad()."""
import pytest

from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.notify import notify_squad
from chalicelib.core.notify_catalogue import TYPES
from tests.factories import make_squad, make_user

from .factories import FakeContext, deliveries, outbox


def test_get_config_merges_the_catalogue(api, db):
    squad = make_squad(db)
    response = api.get(f"/api/notifications/squads/{squad.id}/config", as_=make_user(db, access_level="executive"))
    assert response.status == 200
    config = response.json["config"]
    assert len(config) == len(TYPES)
    assert config[0] == {"notification_type": TYPES[0].id, "category": TYPES[0].category, "label": TYPES[0].label,
                         "chat_channel_id": None, "email_group": None, "enabled": 1}


def test_put_config_then_get_shows_it(api, db):
    squad = make_squad(db)
    executive = make_user(db, access_level="executive")
    response = api.put(f"/api/notifications/squads/{squad.id}/config", as_=executive, json={"config": [
        {"notification_type": "squad_broadcast", "chat_channel_id": "C_BROADCAST", "email_group": "team@agency.test",
         "enabled": True},
        {"notification_type": "task_assigned", "chat_channel_id": None, "email_group": None, "enabled": False},
    ]})
    assert response.status == 200
    assert response.json["success"] is True
    config = {c["notification_type"]: c for c in
              api.get(f"/api/notifications/squads/{squad.id}/config", as_=executive).json["config"]}
    assert config["squad_broadcast"]["chat_channel_id"] == "C_BROADCAST"
    assert config["squad_broadcast"]["email_group"] == "team@agency.test"
    assert config["task_assigned"]["enabled"] == 0
    # a second PUT updates in place
    api.put(f"/api/notifications/squads/{squad.id}/config", as_=executive,
            json={"config": [{"notification_type": "squad_broadcast", "chat_channel_id": "C_NEW", "email_group": None}]})
    config = {c["notification_type"]: c for c in
              api.get(f"/api/notifications/squads/{squad.id}/config", as_=executive).json["config"]}
    assert config["squad_broadcast"]["chat_channel_id"] == "C_NEW" and config["squad_broadcast"]["email_group"] is None
    # another squad is untouched
    other = make_squad(db)
    other_config = api.get(f"/api/notifications/squads/{other.id}/config", as_=executive).json["config"]
    assert all(c["chat_channel_id"] is None and c["enabled"] == 1 for c in other_config)


@pytest.mark.parametrize("level", ["employee", "lead", "manager", "head"])
def test_config_is_executive_only(api, db, level):
    squad = make_squad(db)
    user = make_user(db, access_level=level)
    assert api.get(f"/api/notifications/squads/{squad.id}/config", as_=user).status == 403
    response = api.put(f"/api/notifications/squads/{squad.id}/config", as_=user,
                       json={"config": [{"notification_type": "mention", "enabled": False}]})
    assert response.status == 403


def test_unknown_squad_is_404(api, db):
    executive = make_user(db, access_level="executive")
    path = "/api/notifications/squads/00000000-0000-0000-0000-000000000000/config"
    assert api.get(path, as_=executive).status == 404
    assert api.put(path, as_=executive, json={"config": []}).status == 404


@pytest.mark.parametrize("config", [
    [{"notification_type": "no_such_type"}],
    [{"notification_type": "mention", "email_group": "not-an-address"}],
    [{"notification_type": "mention", "enabled": "sometimes"}],
    [{"notification_type": "mention", "enabled": "yes"}],  # a flag is true/false or 1/0 (issue 9 item 3)
    [{"notification_type": "mention", "enabled": "off"}],
    "all",
])
def test_put_config_rejects_bad_input(api, db, config):
    squad = make_squad(db)
    response = api.put(f"/api/notifications/squads/{squad.id}/config",
                       as_=make_user(db, access_level="executive"), json={"config": config})
    assert response.status == 400


# --- notify_squad (internal operation) -------------------------------------------------------

def _squad_with_members(db, **squad_kw):
    manager = make_user(db, access_level="manager", name="Mia Manager")
    squad = make_squad(db, manager_id=manager.id, **squad_kw)
    members = {
        "employee": make_user(db, squad_id=squad.id, access_level="employee", name="Eve"),
        "lead": make_user(db, squad_id=squad.id, access_level="lead", name="Leo"),
        "head": make_user(db, squad_id=squad.id, access_level="head", name="Hal"),
    }
    make_user(db, squad_id=squad.id, access_level="employee", is_active=False)
    make_user(db, access_level="employee")  # another squad
    return squad, manager, members


@pytest.mark.parametrize("audience,expected", [
    ("squad", {"employee", "lead", "head", "manager"}),
    ("leads", {"lead", "head", "manager"}),
    ("managers", {"head", "manager"}),
])
def test_notify_squad_reaches_the_audience(db, audience, expected):
    squad, manager, members = _squad_with_members(db)
    ids = {**{key: user.id for key, user in members.items()}, "manager": manager.id}
    ctx = FakeContext(db)
    result = notify_squad(ctx, squad_id=squad.id, audience=audience, type="squad_broadcast", title="Standup moved")
    assert set(result["notified"]) == {ids[key] for key in expected}


def test_notify_squad_leaves_the_actor_out_and_posts_to_the_squad_channel(db):
    squad, manager, members = _squad_with_members(db, chat_channel_id="C_SQUAD")
    ctx = FakeContext(db)
    result = notify_squad(ctx, squad_id=squad.id, audience="squad", type="squad_broadcast", title="Release today",
                          body="at 3pm", actor_id=members["lead"].id)
    assert members["lead"].id not in result["notified"] and len(result["notified"]) == 3
    ctx.commit()  # in-process delivery
    (post,) = deliveries(db, squad_id=squad.id)
    assert (post.channel, post.target, post.status) == ("chat", "C_SQUAD", "sent")
    chats = [m for m in outbox(db, "chat") if m.target == "C_SQUAD"]
    assert len(chats) == 1 and "Release today" in chats[0].body and "at 3pm" in chats[0].body


def test_notify_squad_uses_the_config_row_channel_and_email_group(db):
    from chalicelib.core.notify_models import SquadNotificationConfig

    squad, manager, members = _squad_with_members(db, chat_channel_id="C_SQUAD")
    db.add(SquadNotificationConfig(squad_id=squad.id, notification_type="squad_broadcast",
                                   chat_channel_id="C_ANNOUNCE", email_group="squad@agency.test", enabled=True))
    db.flush()
    ctx = FakeContext(db)
    notify_squad(ctx, squad_id=squad.id, audience="leads", type="squad_broadcast", title="Hi")
    ctx.commit()
    rows = {d.channel: d for d in deliveries(db, squad_id=squad.id)}
    assert rows["chat"].target == "C_ANNOUNCE" and rows["chat"].status == "sent"
    assert rows["email"].target == "squad@agency.test" and rows["email"].status == "sent"
    assert [m.target for m in outbox(db, "mail")] == ["squad@agency.test"]


def test_notify_squad_disabled_config_posts_nothing_but_members_are_notified(db):
    from chalicelib.core.notify_models import SquadNotificationConfig

    squad, manager, members = _squad_with_members(db, chat_channel_id="C_SQUAD")
    db.add(SquadNotificationConfig(squad_id=squad.id, notification_type="squad_broadcast", enabled=False))
    db.flush()
    ctx = FakeContext(db)
    result = notify_squad(ctx, squad_id=squad.id, audience="squad", type="squad_broadcast", title="Quiet")
    assert result["deliveries"] == [] and len(result["notified"]) == 4
    assert deliveries(db, squad_id=squad.id) == []


def test_notify_squad_without_channel_only_notifies_members(db):
    squad, manager, members = _squad_with_members(db)
    result = notify_squad(FakeContext(db), squad_id=squad.id, audience="managers", type="squad_broadcast", title="x")
    assert result["deliveries"] == [] and len(result["notified"]) == 2


def test_notify_squad_rejects_unknown_squad_and_audience(db):
    squad = make_squad(db)
    with pytest.raises(NotFound):
        notify_squad(FakeContext(db), squad_id="missing", audience="squad", type="squad_broadcast", title="x")
    with pytest.raises(BadRequest):
        notify_squad(FakeContext(db), squad_id=squad.id, audience="everyone", type="squad_broadcast", title="x")


def test_notify_squad_failed_channel_post_is_recorded(db):
    squad, manager, members = _squad_with_members(db, chat_channel_id="C_INVALID_1")
    ctx = FakeContext(db)
    notify_squad(ctx, squad_id=squad.id, audience="managers", type="squad_broadcast", title="x")
    ctx.commit()
    (post,) = deliveries(db, squad_id=squad.id)
    assert post.status == "failed" and "channel_not_found" in post.error
