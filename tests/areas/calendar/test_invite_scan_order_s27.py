"""Session 27: two invite scans overlapping record what each read in the order they finish, not the order they read.
Every time the scan records is the time of its own read (the calendar read taken before it): an answer it saw sets
`responded_at` to when it read it, only where nothing announced was read after it; an announcement sets `notified_at`
to when the awaiting invitation was read. The answer was stamped with the time it was written: an older read of
"answered" written after a newer scan announced the reset looked newer than that announcement, and the next scan
announced the same reset again."""
from chalicelib.areas.calendar.jobs import _record, scan_invites
from chalicelib.core.ids import utcnow
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from tests.areas.calendar.test_invite_reset_s27 import _age, _invited, _meeting, _set_response


def _answered_in_calendar(api, db):
    """An announced invitation the invitee answered in the calendar itself, as a scan saw it."""
    organiser, invitee, event_id = _meeting(api, db)
    _set_response(db, event_id, invitee.email, "tentative")
    scan_invites()  # sees it answered
    assert _invited(db, invitee) == [event_id]
    return organiser, invitee, event_id


def test_an_older_read_of_an_answer_recorded_after_a_newer_scan_announced_the_reset_is_not_announced_again(
        api, db, monkeypatch):
    _organiser, invitee, event_id = _answered_in_calendar(api, db)
    real = SandboxCalendar.list_events
    state = {"raced": False}

    def slow_read(self, user_email, calendar_id, **kw):
        events = real(self, user_email, calendar_id, **kw)
        if user_email.lower() == invitee.email.lower() and not state["raced"]:
            state["raced"] = True
            # scan A has read "tentative"; before it records it, the organiser resets and scan B runs to its end
            _set_response(db, event_id, invitee.email, "needsAction")
            _age(db, invitee)
            scan_invites()
        return events

    monkeypatch.setattr(SandboxCalendar, "list_events", slow_read)
    scan_invites()  # scan A, its read taken before the reset, recorded after B's
    monkeypatch.undo()
    assert state["raced"]
    assert _invited(db, invitee) == [event_id, event_id]  # B announced the reset
    _age(db, invitee)
    scan_invites()  # a later scan sees the same reset, still awaiting
    assert _invited(db, invitee) == [event_id, event_id], "one reset announced twice"


def test_an_answer_read_after_a_scan_read_the_reset_and_recorded_after_it_announced_counts_for_the_next_reset(
        api, db, monkeypatch):
    _organiser, invitee, event_id = _answered_in_calendar(api, db)
    _set_response(db, event_id, invitee.email, "needsAction")  # the organiser resets
    real = SandboxCalendar.list_events
    seen = {}

    def slow_read(self, user_email, calendar_id, **kw):
        events = real(self, user_email, calendar_id, **kw)
        if user_email.lower() == invitee.email.lower() and not seen:
            # scan B has read "needsAction"; the invitee answers in the calendar and scan A reads that, before B
            # records what it read
            _set_response(db, event_id, invitee.email, "accepted")
            seen["read_at"] = utcnow()  # scan A's read
        return events

    monkeypatch.setattr(SandboxCalendar, "list_events", slow_read)
    scan_invites()  # scan B announces the reset it read
    monkeypatch.undo()
    assert _invited(db, invitee) == [event_id, event_id]
    # scan A records the answer it read (after B's read, before B's announcement was written)
    _record({(invitee.id, event_id): (None, seen["read_at"])}, invitee.id)
    _age(db, invitee)
    _set_response(db, event_id, invitee.email, "needsAction")  # the organiser resets again
    scan_invites()
    assert _invited(db, invitee) == [event_id] * 3, "a reset after an answer the scan saw went untold"
