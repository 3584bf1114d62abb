"""Calendar: provider events merged with synthetic events, event writes through the provider, the response to
an invitation, settings, place search, public holidays and culture events.

Provider calls run with no transaction open (`ctx.release_connection()`); what the request reads from the
database (settings, synthetic events) is read first. An unconfigured provider (`CALENDAR_MODE=off`) gives
`{ calendars: [] }`, only synthetic events, and 503 `{ error, detail }` for writes.
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from sqlalchemy import extract, func, select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, lock_row
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.timeutil import org_zone
from chalicelib.providers.calendar import CalendarError, get_calendar

from .models import CalendarInvite, CalendarSettings, CultureEvent, PlaceSearchCache, PublicHoliday
from .queries import (DEFAULTS, culture_record, event_start, holiday_record, invite_key, json_list,
                      load_culture_event, load_holiday, settings_record, settings_values, synthetic_events)

PLACES_CACHE_DAYS = 30


def _provider(ctx, *, required: bool):
    calendar = get_calendar(db=ctx.db)
    if calendar is None and required:
        raise CalendarError("The calendar is not configured", detail="CALENDAR_MODE is off or the service account "
                            "is not set", status=503)
    return calendar


def calendars(ctx) -> list[dict]:
    calendar = _provider(ctx, required=False)
    return calendar.list_calendars(ctx.user.email) if calendar else []


_LAST = datetime.max.replace(tzinfo=timezone.utc)


def _start_key(event: dict) -> tuple:
    """The event's start as an instant, whatever its offset (calendars and events carry their own time zones;
    queries.event_start reads it): an all-day date is its first moment in ORG_TIMEZONE, before that day's timed
    events; a time without an offset is in its `timeZone` (else ORG_TIMEZONE); a start that cannot be read sorts
    last."""
    start = event_start(event)
    if isinstance(start, datetime):
        return start, 1
    if isinstance(start, date):
        return datetime.combine(start, time.min, tzinfo=org_zone()), 0
    return _LAST, 2


def _own_calendars(ctx, calendar_ids: list[str]) -> list[str]:
    """The calendars asked for, each one the caller may read (document 3: "the user sees the primary calendar and the
    shared team calendar", the two /calendars offers): `primary`, the caller's own address (read as `primary`, so it
    is read once) and the team calendar's id. Any other is a 400 naming calendarIds (session 28: any colleague's
    calendar was read whole, through the provider's delegation, as the caller)."""
    from chalicelib.core.errors import bad_field
    from chalicelib.providers.calendar import team_calendar_id

    own, team = ctx.user.email.lower(), team_calendar_id()
    named = ["primary" if calendar_id.lower() == own else team if calendar_id.lower() == team.lower() else calendar_id
             for calendar_id in calendar_ids]
    others = [calendar_id for calendar_id in named if calendar_id not in ("primary", team)]
    if others:
        raise bad_field("calendarIds", f"names a calendar other than primary and the team calendar ({team}): "
                                       f"{', '.join(others)}")
    return list(dict.fromkeys(named))


def list_events(ctx, query) -> list[dict]:
    """The provider's events of each calendar asked for (default primary) and the synthetic events the caller's
    settings show, in the requested range, ordered by start: the first LIST_LIMIT (decisions.md section 4; the
    merged list of several sources is cut once merged). Statements: settings, people, holidays, culture
    events (at most four), whatever the number of records."""
    calendar_ids = _own_calendars(ctx, query.calendar_ids())
    zone = org_zone()
    # timeMax is exclusive (as Google's): a range ending at midnight ends with the day before
    first, last = query.timeMin.astimezone(zone).date(), (query.timeMax - timedelta.resolution).astimezone(zone).date()
    events = synthetic_events(ctx.db, settings_values(ctx.db, ctx.user_id), first, last)
    calendar = _provider(ctx, required=False)
    if calendar is not None:
        email = ctx.user.email
        time_min = query.timeMin.strftime("%Y-%m-%dT%H:%M:%SZ")
        time_max = query.timeMax.strftime("%Y-%m-%dT%H:%M:%SZ")
        ctx.release_connection()
        for calendar_id in calendar_ids:
            events.extend(calendar.list_events(email, calendar_id, time_min=time_min, time_max=time_max))
    return sorted(events, key=_start_key)[:LIST_LIMIT]


def create_event(ctx, *, data) -> dict:
    calendar = _provider(ctx, required=True)
    email = ctx.user.email
    ctx.release_connection()
    return calendar.insert_event(email, data.calendarId, data.provider())


def update_event(ctx, calendar_id: str, event_id: str, *, data) -> dict:
    """The fields sent replace the event's (attendees replaces the whole list: each attendee sent is merged over the
    current entry with its address, keeping the provider's other fields); the rest are kept. When nothing sent
    differs from the event as read, the event is answered without an update (the provider e-mails every guest on
    one: sendUpdates=all). Session 25."""
    calendar = _provider(ctx, required=True)
    email = ctx.user.email
    ctx.release_connection()
    current = calendar.get_event(email, calendar_id, event_id)
    changes = data.provider()
    if "attendees" in changes:
        changes["attendees"] = _merged_attendees(current.get("attendees"), changes["attendees"])
    if all((current.get(name) or None) == (value or None) for name, value in changes.items()):
        return current
    merged = {**current, **changes}
    return calendar.update_event(email, calendar_id, event_id, {k: v for k, v in merged.items() if v is not None})


def _merged_attendees(current: list[dict] | None, sent: list[dict]) -> list[dict]:
    """Each attendee sent over the current event's entry with the same e-mail (case aside), whose other keys
    (optional, responseStatus, comment, additionalGuests, id, ...; Google's Events resource) and spelling of the
    address are kept: the input holds only email and displayName, and the provider's update replaces the whole
    event, so rebuilding the list from the input made optional guests required and could reset answers."""
    by_email: dict[str, dict] = {}
    for attendee in current or []:
        if isinstance(attendee, dict):
            by_email.setdefault(str(attendee.get("email") or "").lower(), attendee)
    merged = []
    for attendee in sent:
        before = by_email.get(attendee["email"].lower())
        merged.append({**before, **{k: v for k, v in attendee.items() if k != "email"}} if before else attendee)
    return merged


def patch_event(ctx, calendar_id: str, event_id: str, *, data) -> dict:
    calendar = _provider(ctx, required=True)
    email = ctx.user.email
    ctx.release_connection()
    return calendar.patch_event(email, calendar_id, event_id, data.provider())


def delete_event(ctx, calendar_id: str, event_id: str) -> None:
    calendar = _provider(ctx, required=True)
    email = ctx.user.email
    ctx.release_connection()
    calendar.delete_event(email, calendar_id, event_id)


def respond(ctx, calendar_id: str, event_id: str, *, data) -> dict:
    """Only the caller's attendee status changes (the organiser is told by the provider: sendUpdates=all); the
    invitation is recorded as answered, so the invite scan never notifies it again.

    The invitation is the event's series for an instance of a recurring event (`queries.invite_key`, as the scan
    keys it; session 28). An answer to one instance answers only that instance (Google's, on an instance id): the
    others still await, and the series was seen, so it is recorded as announced when answered (`notified_at` too):
    the scan's re-announcement of a reset (an answer newer than the last announcement, session 27) would otherwise
    take the other instances awaiting for the organiser's reset. A series is answered when the scan sees every
    instance answered, or through respond on the series' own id.

    An answer repeated (session 31, round 2) is a no-op answered as success: when the status sent is the one this
    invitation last recorded (`calendar_invites.response`) and the event as read still holds it for the caller, the
    event is answered as read, with no update (the provider e-mails the organiser on each: sendUpdates=all), no
    notice to the organiser and nothing recorded. The record alone does not decide: the organiser may have reset the
    answers since (a change of time), the caller changed it in the calendar itself, or the record be the series' of an
    answer to one instance; then the answer is given as before. One read of the event on a repeat, none more on a
    first answer or a change (the provider's respond reads the event itself)."""
    calendar = _provider(ctx, required=True)
    email, user_id = ctx.user.email, ctx.user_id
    recorded = ctx.db.scalar(select(CalendarInvite.response).where(CalendarInvite.user_id == user_id,
                                                                   CalendarInvite.event_id == event_id))
    ctx.release_connection()
    if recorded == data.status:
        current = calendar.get_event(email, calendar_id, event_id)
        if _own_statuses(current, email) == {data.status}:
            return current
    event = calendar.respond(email, calendar_id, event_id, data.status)
    now = utcnow()
    key = invite_key(event) or event_id
    values = {"responded_at": now, "response": data.status,
              **({"notified_at": now} if event.get("recurringEventId") else {})}
    if not insert_ignore(ctx.db, CalendarInvite, {"user_id": user_id, "event_id": key, **values},
                         conflict=("user_id", "event_id")):
        invite = ctx.db.get(CalendarInvite, (user_id, key))
        for name, value in values.items():
            setattr(invite, name, value)
        ctx.db.flush()
    _tell_organiser(ctx, event, data.status)
    return event


def _own_statuses(event: dict, email: str) -> set:
    """The caller's responseStatus on the event (their attendee entries, by address case aside or `self`, as the
    provider's respond finds them); empty when they are not invited."""
    return {attendee.get("responseStatus") for attendee in event.get("attendees") or []
            if isinstance(attendee, dict)
            and ((attendee.get("email") or "").lower() == email.lower() or attendee.get("self"))}


def _tell_organiser(ctx, event: dict, status: str) -> None:
    """The organiser, when a user of the service other than the caller, also gets an in-app notification
    (`meeting_response`); the provider e-mails them too (sendUpdates=all). Core notify's 5-minute de-duplication
    applies, as document 3 states for every notification. Its link (`/calendar?event=<id>`) only for an organiser
    holding calendar view, read in the statement that finds them: to anyone else it answered 403 (session 26)."""
    from sqlalchemy import func

    from chalicelib.core.models import User
    from chalicelib.core.notify import notify
    from chalicelib.core.permissions import holders_select

    organiser = ((event.get("organizer") or {}).get("email") or "").lower()
    if not organiser or organiser == ctx.user.email.lower():
        return
    found = ctx.db.execute(select(User.id, User.id.in_(holders_select("calendar", "view")))
                           .where(func.lower(User.email) == organiser, User.is_active.is_(True))).first()
    if found is None:
        return
    organiser_id, may_view = found
    notify(ctx, user_id=organiser_id, type="meeting_response",
           title=f"{ctx.user.name} {status} {event.get('summary') or 'your meeting'}",
           resource_type="calendar_event", resource_id=str(event.get("id") or "") or None,
           action_url=f"/calendar?event={event.get('id')}" if may_view else None, actor_id=ctx.user_id)


# ---------------------------------------------------------------- settings

def get_settings_record(ctx) -> dict:
    values = settings_values(ctx.db, ctx.user_id)
    return settings_record(values)


def put_settings(ctx, *, data) -> None:
    """Upsert: the fields sent replace the stored ones (arrays stored as JSON array text)."""
    from chalicelib.core.locks import lock_key

    lock_key(ctx.db, "calendar-settings", ctx.user_id)
    row = ctx.db.get(CalendarSettings, ctx.user_id)
    if row is None:
        row = CalendarSettings(user_id=ctx.user_id, **{k: v for k, v in DEFAULTS.items()})
        ctx.db.add(row)
    for key, value in data.changes().items():
        if key in ("visible_calendar_ids", "viewed_person_ids"):
            value = json_list(value)
        setattr(row, key, value)
    row.updated_at = utcnow()
    ctx.db.flush()


# ---------------------------------------------------------------- places

def search_places(ctx, query) -> list[dict]:
    """At most 5 results, biased to the country of `tz`; answers are cached for 30 days (shared by every
    user), so a repeated query never reaches the provider (its usage policy)."""
    from chalicelib.providers.places import MAX_RESULTS, country_for_timezone, get_places

    country = country_for_timezone(query.tz)
    key = f"{country or ''}|{' '.join(query.q.lower().split())}"[:300]
    cached = ctx.db.get(PlaceSearchCache, key)
    if cached is not None and cached.cached_at > utcnow() - timedelta(days=PLACES_CACHE_DAYS):
        return cached.results[:MAX_RESULTS]
    provider = get_places()
    ctx.release_connection()
    results = provider.search(query.q, country=country)[:MAX_RESULTS]
    # the row read before the call may be gone (the daily place-cache-purge deletes stale ones) or made meanwhile:
    # an UPDATE of what is there, else an INSERT that leaves one made meanwhile (session 23)
    stored = ctx.db.execute(update(PlaceSearchCache).where(PlaceSearchCache.key == key)
                            .values(results=results, cached_at=utcnow())
                            .execution_options(synchronize_session=False)).rowcount
    if not stored:
        insert_ignore(ctx.db, PlaceSearchCache, {"key": key, "results": results, "cached_at": utcnow()},
                      conflict=("key",))
    return results


# ---------------------------------------------------------------- public holidays and culture events

def region_key(region: str | None) -> str:
    """A region as compared (session 32): Unicode NFC, case folded, white space trimmed and collapsed, so that
    "New  South Wales" and "new south wales", or an accent composed and decomposed, name one region; "" for none."""
    from chalicelib.core.spelling import name_key

    return name_key(region)


def public_holiday_dates(db, first: date, last: date, region: str | None = None) -> set[date]:
    """The public holidays from `first` to `last` (inclusive) that fall to a person of `region`: those naming no
    region, and those naming this one (case, spaces and Unicode form aside: `region_key`). One statement (the
    holidays of the dates, few, compared here: the database has no NFC of its own on every engine); the leave area
    counts working days with it."""
    own = region_key(region)
    return {day for day, named in db.execute(select(PublicHoliday.date, PublicHoliday.region)
                                             .where(PublicHoliday.date.between(first, last)))
            if not region_key(named) or (own and region_key(named) == own)}


def _latest_by_date(db, model, stmt, *order):
    """The rows of `stmt` by date (then `order`, then id), at most LIST_LIMIT: past the cap the LATEST dates are
    kept, not the oldest (a list without `year` grows every year: its upcoming rows were the ones cut). One
    statement: the latest ids, then those rows in date order."""
    latest = (stmt.with_only_columns(model.id).order_by(model.date.desc(), *(c.desc() for c in order), model.id.desc())
              .limit(LIST_LIMIT).subquery())
    return db.scalars(select(model).join(latest, latest.c.id == model.id).order_by(model.date, *order, model.id))


def list_holidays(ctx, query) -> list[dict]:
    stmt = select(PublicHoliday)
    if query.year:
        stmt = stmt.where(extract("year", PublicHoliday.date) == query.year)
    return [holiday_record(row) for row in _latest_by_date(ctx.db, PublicHoliday, stmt, PublicHoliday.name)]


def create_holiday(ctx, *, data) -> dict:
    row = PublicHoliday(**data.model_dump())
    ctx.db.add(row)
    ctx.db.flush()
    return holiday_record(row)


def update_holiday(ctx, holiday_id: str, *, data) -> dict:
    row = load_holiday(ctx, holiday_id)
    for key, value in data.changes().items():
        setattr(row, key, value)
    ctx.db.flush()
    return holiday_record(row)


def delete_holiday(ctx, holiday_id: str) -> None:
    ctx.db.delete(load_holiday(ctx, holiday_id))
    ctx.db.flush()


def list_culture_events(ctx, query) -> list[dict]:
    stmt = select(CultureEvent)
    if query.year:  # the events overlapping the year: one from 28 December to 2 January is in both years
        stmt = stmt.where(CultureEvent.date <= date(query.year, 12, 31),
                          func.coalesce(CultureEvent.end_date, CultureEvent.date) >= date(query.year, 1, 1))
    if query.status:
        stmt = stmt.where(CultureEvent.status == query.status)
    return [culture_record(row) for row in _latest_by_date(ctx.db, CultureEvent, stmt, CultureEvent.title)]


def create_culture_event(ctx, *, data) -> dict:
    row = CultureEvent(**data.model_dump(), created_by=ctx.user_id)
    ctx.db.add(row)
    ctx.db.flush()
    return culture_record(row)


def update_culture_event(ctx, event_id: str, *, data) -> dict:
    from chalicelib.core.errors import BadRequest

    load_culture_event(ctx, event_id)
    row = lock_row(ctx.db, CultureEvent, event_id, missing="Culture event")  # the dates checked are the ones a concurrent change committed
    changes = data.changes()
    for key, value in changes.items():
        setattr(row, key, value)
    if row.end_date is not None and row.end_date < row.date:
        # the date the request sent: end_date when it gives one, else date, moved past the stored end (session 32:
        # that named end_date, a field the request did not send)
        if "end_date" in changes or "date" not in changes:
            raise BadRequest("end_date must not be before date",
                             details=[{"field": "end_date", "message": "before date"}])
        raise BadRequest("date must not be after end_date",
                         details=[{"field": "date", "message": "must not be after end_date"}])
    ctx.db.flush()
    return culture_record(row)


def delete_culture_event(ctx, event_id: str) -> None:
    ctx.db.delete(load_culture_event(ctx, event_id))
    ctx.db.flush()
