"""Calendar (tool `calendar`): provider events merged with synthetic events, settings, place search, and the
public holidays and culture events the synthetic events come from."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one

from . import jobs, service
from .schemas import (CalendarEventRead, CalendarsRead, CultureEventCreate, CultureEventListQuery, CultureEventRead,
                      CultureEventUpdate, EventCreate, EventPatch, EventsQuery, EventUpdate, HolidayCreate,
                      HolidayListQuery, HolidayRead, HolidayUpdate, PlacesQuery, PlacesRead, RespondRequest,
                      SettingsBody, SettingsUpdate)

bp = Blueprint(__name__)
EVENT = one("event", CalendarEventRead)
ERRORS = (404, 409, 502, 503, 504)  # the provider's own 404 and 409 pass through (a calendar not found)


@bp.route("/api/calendar/calendars", methods=["GET"])
@endpoint(tool="calendar", level="view", response=CalendarsRead)
def list_calendars(ctx):
    """The caller's primary calendar and the shared team calendar (none when the calendar is not configured)"""
    return {"calendars": service.calendars(ctx)}


@bp.route("/api/calendar/events", methods=["GET"])
@endpoint(tool="calendar", level="view", query=EventsQuery, response=many("events", CalendarEventRead), errors=ERRORS)
def list_calendar_events(ctx, query: EventsQuery):
    """Provider events of the calendars asked for (default primary) with the synthetic events, in the range"""
    return {"events": service.list_events(ctx, query)}


@bp.route("/api/calendar/events", methods=["POST"])
@endpoint(tool="calendar", level="update", body=EventCreate, status=201, response=EVENT, errors=ERRORS)
def create_calendar_event(ctx, body: EventCreate):
    """Create an event (invitations are e-mailed to the attendees); a failure answers { error, detail }"""
    return {"event": service.create_event(ctx, data=body)}


@bp.route("/api/calendar/events/{calendar_id}/{event_id}", methods=["PUT"])
@endpoint(tool="calendar", level="update", body=EventUpdate, response=EVENT, errors=ERRORS)
def update_calendar_event(ctx, calendar_id: str, event_id: str, body: EventUpdate):
    """Update an event; attendees replaces the whole list"""
    return {"event": service.update_event(ctx, calendar_id, event_id, data=body)}


@bp.route("/api/calendar/events/{calendar_id}/{event_id}", methods=["PATCH"])
@endpoint(tool="calendar", level="update", body=EventPatch, response=EVENT, errors=ERRORS)
def patch_calendar_event(ctx, calendar_id: str, event_id: str, body: EventPatch):
    """Move an event (start and end)"""
    return {"event": service.patch_event(ctx, calendar_id, event_id, data=body)}


@bp.route("/api/calendar/events/{calendar_id}/{event_id}", methods=["DELETE"])
@endpoint(tool="calendar", level="update", response=OkResponse, errors=ERRORS)
def delete_calendar_event(ctx, calendar_id: str, event_id: str):
    """Delete an event"""
    service.delete_event(ctx, calendar_id, event_id)
    return {"ok": True}


@bp.route("/api/calendar/events/{calendar_id}/{event_id}/respond", methods=["POST"])
@endpoint(tool="calendar", level="update", body=RespondRequest, response=EVENT, errors=ERRORS)
def respond_to_calendar_event(ctx, calendar_id: str, event_id: str, body: RespondRequest):
    """Accept, decline or tentatively accept an invitation (only the caller's status changes)"""
    return {"event": service.respond(ctx, calendar_id, event_id, data=body)}


@bp.route("/api/calendar/places", methods=["GET"])
@endpoint(tool="calendar", level="view", query=PlacesQuery, response=PlacesRead, errors=ERRORS)
def search_calendar_places(ctx, query: PlacesQuery):
    """Places matching q (at least 2 characters; up to 5), biased to the country of tz"""
    return {"results": service.search_places(ctx, query)}


@bp.route("/api/calendar/settings", methods=["GET"])
@endpoint(tool="calendar", level="view", response=SettingsBody)
def get_calendar_settings(ctx):
    """The caller's calendar settings (the defaults until saved)"""
    return {"settings": service.get_settings_record(ctx)}


@bp.route("/api/calendar/settings", methods=["PUT"])
@endpoint(tool="calendar", level="update", body=SettingsUpdate, response=OkResponse)
def put_calendar_settings(ctx, body: SettingsUpdate):
    """Save the caller's calendar settings (upsert)"""
    service.put_settings(ctx, data=body)
    return {"ok": True}


@bp.route("/api/calendar/public-holidays", methods=["GET"])
@endpoint(tool="calendar", level="view", query=HolidayListQuery, response=many("public_holidays", HolidayRead))
def list_public_holidays(ctx, query: HolidayListQuery):
    """Public holidays by date (optionally one year)"""
    return {"public_holidays": service.list_holidays(ctx, query)}


@bp.route("/api/calendar/public-holidays", methods=["POST"])
@endpoint(tool="calendar", level="manage", body=HolidayCreate, status=201, response=one("public_holiday", HolidayRead))
def create_public_holiday(ctx, body: HolidayCreate):
    """Add a public holiday"""
    return {"public_holiday": service.create_holiday(ctx, data=body)}


@bp.route("/api/calendar/public-holidays/{holiday_id}", methods=["PUT"])
@endpoint(tool="calendar", level="manage", body=HolidayUpdate, response=one("public_holiday", HolidayRead))
def update_public_holiday(ctx, holiday_id: str, body: HolidayUpdate):
    """Change a public holiday"""
    return {"public_holiday": service.update_holiday(ctx, holiday_id, data=body)}


@bp.route("/api/calendar/public-holidays/{holiday_id}", methods=["DELETE"])
@endpoint(tool="calendar", level="manage", response=OkResponse)
def delete_public_holiday(ctx, holiday_id: str):
    """Remove a public holiday"""
    service.delete_holiday(ctx, holiday_id)
    return {"ok": True}


@bp.route("/api/calendar/culture-events", methods=["GET"])
@endpoint(tool="calendar", level="view", query=CultureEventListQuery, response=many("culture_events", CultureEventRead))
def list_culture_events(ctx, query: CultureEventListQuery):
    """Culture events by date (optionally one year or one status)"""
    return {"culture_events": service.list_culture_events(ctx, query)}


@bp.route("/api/calendar/culture-events", methods=["POST"])
@endpoint(tool="calendar", level="manage", body=CultureEventCreate, status=201,
          response=one("culture_event", CultureEventRead))
def create_culture_event(ctx, body: CultureEventCreate):
    """Add a culture event (planned, confirmed or cancelled)"""
    return {"culture_event": service.create_culture_event(ctx, data=body)}


@bp.route("/api/calendar/culture-events/{culture_event_id}", methods=["PUT"])
@endpoint(tool="calendar", level="manage", body=CultureEventUpdate, response=one("culture_event", CultureEventRead))
def update_culture_event(ctx, culture_event_id: str, body: CultureEventUpdate):
    """Change a culture event"""
    return {"culture_event": service.update_culture_event(ctx, culture_event_id, data=body)}


@bp.route("/api/calendar/culture-events/{culture_event_id}", methods=["DELETE"])
@endpoint(tool="calendar", level="manage", response=OkResponse)
def delete_culture_event(ctx, culture_event_id: str):
    """Remove a culture event"""
    service.delete_culture_event(ctx, culture_event_id)
    return {"ok": True}


@bp.schedule(Rate(15, unit=Rate.MINUTES))
def calendar_invite_scan(event):
    """Notify invitations awaiting the user's response (meeting_invited), once per invitation."""
    return jobs.scan_invites()


@bp.schedule(Rate(1, unit=Rate.DAYS))
def place_cache_purge(event):
    """Daily: delete place searches cached past their 30 days (with a day's margin), never the reserved rows."""
    return jobs.place_cache_purge()
