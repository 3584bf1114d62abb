"""Session 28 (audit "ignored"): a portal preference entry that names one channel changes that channel only; the
channel it leaves out keeps its effective value (the stored row, else the type's default), as the staff
preferences do ("Channels left out of an entry keep their effective value"). Before, a left-out in-app channel was
reset to on and a left-out e-mail channel to off, whatever the type's default or the user's choice."""
from chalicelib.areas.portal import service_notifications
from tests.areas.portal.conftest import make_client

PATH = "/notifications/preferences"


def _channels(portal, company, type_id):
    answer = portal.get(PATH, company)
    assert answer.status == 200, answer
    pref = next(p for p in answer.json["preferences"] if p["notification_type"] == type_id)
    return pref["channel_in_app"], pref["channel_email"]


def _save(portal, company, *entries):
    saved = portal.put(PATH, company, json={"preferences": list(entries)})
    assert saved.status == 200, saved.json


def test_turning_in_app_off_keeps_the_budget_emails_on(portal, db):
    mine = make_client(db)
    assert _channels(portal, mine, "portal_budget_pending") == (1, 1)  # e-mail on by default for budgets
    _save(portal, mine, {"notification_type": "portal_budget_pending", "channel_in_app": False})
    # was (0, 0): the left-out e-mail channel was reset to off
    assert _channels(portal, mine, "portal_budget_pending") == (0, 1)


def test_turning_email_on_keeps_in_app_off(portal, db):
    mine = make_client(db)
    _save(portal, mine, {"notification_type": "portal_note_reply", "channel_in_app": False})
    _save(portal, mine, {"notification_type": "portal_note_reply", "channel_email": True})
    # was (1, 1): the left-out in-app channel was turned back on
    assert _channels(portal, mine, "portal_note_reply") == (0, 1)


def test_an_entry_naming_no_channel_keeps_a_customised_type(portal, db):
    mine = make_client(db)
    _save(portal, mine, {"notification_type": "portal_note_reply", "channel_in_app": False, "channel_email": True})
    _save(portal, mine, {"notification_type": "portal_note_reply"})
    assert _channels(portal, mine, "portal_note_reply") == (0, 1)


def test_a_type_named_twice_merges_its_entries_in_order(portal, db):
    mine = make_client(db)
    _save(portal, mine, {"notification_type": "portal_request_updated", "channel_in_app": False},
          {"notification_type": "portal_request_updated", "channel_email": True})
    assert _channels(portal, mine, "portal_request_updated") == (0, 1)


def test_changing_several_types_costs_what_changing_one_does(portal, db, count_queries):
    mine = make_client(db)
    _save(portal, mine, {"notification_type": "portal_announcement", "channel_email": True})  # one stored row
    flipped = [{"notification_type": type_id, "channel_in_app": not in_app}
               for type_id, _label, _description, in_app, _email in service_notifications.PORTAL_TYPES]
    with count_queries() as one:
        _save(portal, mine, flipped[0])
    with count_queries() as several:
        _save(portal, mine, *flipped[1:])
    assert several.count == one.count
    assert all(_channels(portal, mine, entry["notification_type"])[0] == int(entry["channel_in_app"])
               for entry in flipped)
