"""The scheduled job calendar-invite-scan through the Lambda handler and the CLI, against the sandbox
calendar: run twice, one effect (developers' guide, scheduled jobs)."""
import json
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select

from chalicelib.areas.calendar.models import CalendarInvite
from chalicelib.core.notify import Notification
from tests.factories import grant, make_user


def _in_days(days: int, hour: int) -> str:
    moment = (datetime.now(timezone.utc) + timedelta(days=days)).replace(hour=hour, minute=0, second=0, microsecond=0)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _seed(api, db):
    """An organiser invites two users to a meeting in two days; one of them has declined already."""
    organiser = make_user(db, access_level="employee", name="Olive Organiser")
    grant(db, organiser, "calendar", "update")
    invitee, answered = make_user(db, name="Ivy Invitee"), make_user(db, name="Otto Answered")
    grant(db, answered, "calendar", "update")  # to respond
    made = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Kick-off", "start": {"dateTime": _in_days(2, 10)},
        "end": {"dateTime": _in_days(2, 11)}, "attendees": [{"email": invitee.email}, {"email": answered.email}]})
    assert made.status == 201, made
    event_id = made.json["event"]["id"]
    declined = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=answered, json={"status": "declined"})
    assert declined.status == 200, declined
    assert _state(db, (organiser, invitee, answered)) == [(0, 0), (0, 0), (0, 1)]
    return organiser, invitee, answered, event_id


def _state(db, users):
    """Per user: the meeting_invited notifications and the invitations recorded as notified."""
    def count(model, *where):
        return db.scalar(select(func.count()).select_from(model).where(*where))

    return [(count(Notification, Notification.user_id == u.id, Notification.type == "meeting_invited"),
             count(CalendarInvite, CalendarInvite.user_id == u.id)) for u in users]


def _assert_one_invitation(db, organiser, invitee, answered, event_id):
    # the response recorded the declined invitation (never notified); the scan added the invitee's, once
    assert _state(db, (organiser, invitee, answered)) == [(0, 0), (1, 1), (0, 1)]
    notice = db.scalar(select(Notification).where(Notification.user_id == invitee.id,
                                                  Notification.type == "meeting_invited"))
    assert notice.title == "Invitation: Kick-off" and notice.action_url == f"/calendar?event={event_id}"


def test_invite_scan_through_the_scheduled_handler(api, db, client):
    organiser, invitee, answered, event_id = _seed(api, db)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    first = client.lambda_.invoke("calendar_invite_scan", event).payload
    assert (first["awaiting"], first["notified"], first["failed"]) == (1, 1, 0)
    second = client.lambda_.invoke("calendar_invite_scan", event).payload
    assert (second["awaiting"], second["notified"], second["failed"]) == (1, 0, 0)  # seen, not notified again
    _assert_one_invitation(db, organiser, invitee, answered, event_id)


def test_invite_scan_through_the_cli(api, db, capsys):
    from chalicelib import cli

    organiser, invitee, answered, event_id = _seed(api, db)
    assert cli.main(["job", "calendar-invite-scan"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["awaiting"], first["notified"], first["failed"]) == (1, 1, 0)
    assert cli.main(["job", "calendar-invite-scan"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert (second["awaiting"], second["notified"], second["failed"]) == (1, 0, 0)
    assert second["users"] == first["users"] >= 3
    _assert_one_invitation(db, organiser, invitee, answered, event_id)
