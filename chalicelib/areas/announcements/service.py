"""Announcements: list, unread count, detail, create, edit, delete, read receipts and distribution.

Rules (document 3, Announcements): create needs update:announcements and head or executive access; edit and
distribute are for the original author or an executive (403 otherwise), the author still holding what create
requires (session 25: a demoted author is refused as on create); delete needs manage:announcements and
executive access, and removes the read receipts (and distributions) with it, and its notices from the client
portal (session 24; so does an edit that moves a company announcement to an internal category). Read receipts
are shown to head and executive only. A new announcement notifies active staff who hold announcements:view (`announcement_published`,
the author left out) through `notify_many`: a fixed number of statements whatever the staff count.

Distribution calls the providers with no transaction held open (`ctx.release_connection()`), each channel on
its own: one failing does not stop the others. Each outcome is recorded as a distribution row. The team calendar
holds one event per announcement, its id derived from the announcement's (`calendar_event_id`, session 27): a
distribution retried after a lost answer, or sent again, takes that event and does not make a second one.
Deleting the announcement deletes that event after commit when a distribution row names the calendar (session
27; a failure is logged, the delete still succeeds); a distribution that finds the announcement deleted while the
providers answered removes the event it made the same way (session 32).
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import delete, func, select

from chalicelib.core.errors import BadRequest, DomainError, Forbidden, ServiceUnavailable
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, insert_rows, lock_row
from chalicelib.core.scoping import sees_all
from chalicelib.core.serialize import kept_id

from .models import Announcement, AnnouncementDistribution, AnnouncementReceipt
from .queries import list_records, load_announcement, one_record, readers_select, receipt_records
from .queries import announcement_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record

log = logging.getLogger("wms.announcements")
SANDBOX_CHAT_CHANNEL = "C_ANNOUNCEMENTS"
SANDBOX_EMAIL_TO = "all-staff@example.com"


def list_announcements(ctx, query) -> list[dict]:
    return list_records(ctx.db, ctx.user_id, query.category)


def unread_count(ctx) -> int:
    read = select(AnnouncementReceipt.announcement_id).where(AnnouncementReceipt.user_id == ctx.user_id)
    return ctx.db.scalar(select(func.count()).select_from(Announcement).where(Announcement.id.not_in(read)))


def get_announcement(ctx, announcement_id: str) -> dict:
    load_announcement(ctx, announcement_id)
    body = {"announcement": one_record(ctx.db, ctx.user_id, announcement_id)}
    if sees_all(ctx.principal):
        body["read_receipts"] = receipt_records(ctx.db, announcement_id)
    return body


def _notify_staff(ctx, announcement: Announcement) -> None:
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    staff = ctx.db.scalars(readers_select(ctx.user_id))  # only those who may open it (announcements:view)
    notify_many(ctx, [{"user_id": user_id, "type": "announcement_published",
                       "title": f"New announcement: {announcement.title}", "resource_type": "announcement",
                       "resource_id": announcement.id, "action_url": f"/announcements/{announcement.id}",
                       "actor_id": ctx.user_id} for user_id in staff])


def create_announcement(ctx, *, data) -> dict:
    announcement = Announcement(**data.model_dump(), author_id=ctx.user_id)
    ctx.db.add(announcement)
    ctx.db.flush()
    _notify_staff(ctx, announcement)
    if announcement.category == "company":
        from chalicelib.areas.portal import service as portal_service  # every client reads company announcements

        portal_service.announcement_published(ctx, announcement_id=announcement.id, title=announcement.title)
    return one_record(ctx.db, ctx.user_id, announcement.id)


WRITER_ACCESS = ("head", "executive")  # who may write announcements: create's check (api.py), and an author's


def _author_or_executive(ctx, announcement: Announcement, what: str) -> None:
    """An executive, or the author who still holds what create requires (session 25: the author rule restricts the
    permission to write announcements, it grants none; a head demoted to manager no longer edits nor distributes
    what they wrote). Refused as create refuses, with the endpoint's own message."""
    level = ctx.principal.access_level
    if level == "executive":
        return
    if level not in WRITER_ACCESS:
        raise Forbidden(f"Requires access level {' or '.join(WRITER_ACCESS)}")
    if announcement.author_id != ctx.user_id:
        raise Forbidden(f"Only the author or an executive may {what} this announcement")


def update_announcement(ctx, *, announcement_id: str, data) -> dict:
    announcement = load_announcement(ctx, announcement_id)
    _author_or_executive(ctx, announcement, "edit")
    was_company = announcement.category == "company"
    for key, value in data.changes().items():
        setattr(announcement, key, value)
    ctx.db.flush()
    if was_company and announcement.category != "company":  # the clients no longer read it (session 24)
        _withdraw_from_portal(ctx, announcement.id)
    elif not was_company and announcement.category == "company":  # the clients read it from now: told, as on create
        from chalicelib.areas.portal import service as portal_service  # another area: imported lazily

        portal_service.announcement_published(ctx, announcement_id=announcement.id, title=announcement.title)
    return one_record(ctx.db, ctx.user_id, announcement.id)


def _withdraw_from_portal(ctx, announcement_id: str) -> None:
    from chalicelib.areas.portal import service as portal_service  # another area: imported lazily

    portal_service.announcement_withdrawn(ctx.db, announcement_id=announcement_id)


def delete_announcement(ctx, *, announcement_id: str) -> None:
    from chalicelib.areas.notes import service as notes_service  # another area: imported lazily

    load_announcement(ctx, announcement_id)
    # the row first: a distribution that sent to the calendar and holds the row to record it is waited for, and its
    # rows are read below (they were read before the wait, the event it recorded never removed; session 32); a
    # delete that waited for another delete answers 404, as one after it
    lock_row(ctx.db, Announcement, announcement_id, missing="Announcement")
    notes_service.records_deleted(ctx.db, "announcement", [announcement_id])  # its notes go with it (session 23)
    # its notices leave the clients' portals (session 24), whatever its category now: one moved to an internal
    # category before session 24 kept them
    _withdraw_from_portal(ctx, announcement_id)
    events = _calendar_events(ctx.db, announcement_id)  # read before the cascade takes the distribution rows
    # receipts and distributions go with it (ON DELETE CASCADE)
    ctx.db.execute(delete(Announcement).where(Announcement.id == announcement_id))
    if events:  # its team calendar event leaves the calendar once the delete is committed (session 27)
        user_email = ctx.principal.user.email
        ctx.after_commit(lambda: _remove_calendar_events(announcement_id, events, user_email))


def _calendar_events(db, announcement_id: str) -> list[str]:
    """The team calendar event ids an announcement may have there: none unless a distribution row names the
    calendar; else the id derived from it (`calendar_event_id`: a row `failed` may be an insert whose answer was
    lost) and the ids of the rows `sent` (one Google chose, before session 27)."""
    rows = db.execute(select(AnnouncementDistribution.status, AnnouncementDistribution.external_id)
                      .where(AnnouncementDistribution.announcement_id == announcement_id,
                             AnnouncementDistribution.channel == "calendar")).all()
    if not rows:
        return []
    ids = [calendar_event_id(announcement_id)]
    ids += [external_id for status, external_id in rows if status == "sent" and external_id]
    return list(dict.fromkeys(ids))


def _remove_calendar_events(announcement_id: str, event_ids: list[str], user_email: str) -> None:
    """After the delete's commit: each event deleted on the team calendar, acting as the executive who deleted
    the announcement; none there (404, Google's 410 is a 404 here) is already gone. A failure is logged with the
    ids left, for staff to delete by hand on the team calendar; the delete has succeeded (the announcement is gone)."""
    from chalicelib.core.context import job_context
    from chalicelib.providers.calendar import CalendarError, get_calendar, team_calendar_id

    try:
        with job_context() as job:  # a unit of work of its own (the sandbox keeps its events in a table)
            calendar = get_calendar(db=job.db)
            if calendar is None:
                log.error("announcement %s deleted; the calendar is not configured: team calendar events %s "
                          "left to delete by hand", announcement_id, ", ".join(event_ids))
                return
            for event_id in event_ids:
                try:
                    with job.db.begin_nested():  # one event's failure leaves the others' deletes
                        calendar.delete_event(user_email, team_calendar_id(), event_id)
                except CalendarError as exc:
                    if exc.status != 404:
                        log.error("announcement %s deleted; its team calendar event %s was not: %s (%s)",
                                  announcement_id, event_id, exc.message, (exc.extra or {}).get("detail"))
                except Exception:  # noqa: BLE001 - the announcement is deleted; never turned into a 500
                    log.exception("announcement %s deleted; its team calendar event %s was not", announcement_id,
                                  event_id)
    except Exception:  # noqa: BLE001 - as above (the unit of work's own commit failing)
        log.exception("announcement %s deleted; its team calendar events %s may be left", announcement_id,
                      ", ".join(event_ids))


def mark_read(ctx, *, announcement_id: str) -> None:
    """Idempotent: the first read is kept (a concurrent second read is a no-op). The announcement is share-locked
    (FOR KEY SHARE): a read that waited for its delete answers 404, as one after it (it was a 400 naming a field the
    request does not have; session 22's races audit)."""
    load_announcement(ctx, announcement_id)
    lock_row(ctx.db, Announcement, announcement_id, key_share=True, missing="Announcement")
    insert_ignore(ctx.db, AnnouncementReceipt, {"announcement_id": announcement_id, "user_id": ctx.user_id},
                  conflict=("announcement_id", "user_id"))


def distributions(ctx, *, announcement_id: str) -> list[dict]:
    from .queries import distribution_records

    load_announcement(ctx, announcement_id)
    return distribution_records(ctx.db, announcement_id)


# ---------------------------------------------------------------- distribution

def _configured(value: str | None, mode: str, sandbox_default: str, what: str) -> str:
    if value:
        return value
    if mode == "sandbox":
        return sandbox_default
    raise ServiceUnavailable(f"No {what} is configured")


def _calendar_event(announcement: dict, spec) -> dict:
    from chalicelib.core.settings import get_settings

    event = {"summary": announcement["title"], "description": _cut(announcement["content"], CALENDAR_TEXT_MAX)}
    if spec.start_time:
        zone = get_settings().org_timezone
        day = spec.date.isoformat()
        event["start"] = {"dateTime": f"{day}T{spec.start_time}:00", "timeZone": zone}
        event["end"] = {"dateTime": f"{day}T{spec.end_time}:00", "timeZone": zone}
    else:  # all-day: Google's end date is exclusive
        event["start"] = {"date": spec.date.isoformat()}
        event["end"] = {"date": (spec.date + timedelta(days=1)).isoformat()}
    return event


def _send_chat(ctx, announcement: dict) -> str:
    from chalicelib.providers.chat import default_channel, get_chat
    from chalicelib.providers.chat.base import escape

    settings = ctx.settings
    # the announcements' own channel, else the team chat channel saved with the chat connection (document 3:
    # "the configured team chat channel")
    channel = _configured(settings.announcements_chat_channel or default_channel(ctx.db),
                          settings.provider_mode("chat"), SANDBOX_CHAT_CHANNEL,
                          "announcements chat channel (ANNOUNCEMENTS_CHAT_CHANNEL or the chat connection's channel)")
    text = f"*{escape(announcement['title'])}*\n{escape(announcement['content'])}"
    return get_chat(db=ctx.db).post_message(channel=channel, text=_chat_cut(text))["ts"]


CHAT_TEXT_MAX = 39000  # under Slack's 40,000 characters of a message's text
# under the about 8,192 characters Google Calendar holds of an event's description (undocumented by Google; past it
# an insert can be refused, "A provided value exceeds the allowed size limit": session 28's provider-limits audit)
CALENDAR_TEXT_MAX = 8000


def _cut(text: str | None, limit: int) -> str | None:
    """The text within `limit` characters, a cut marked with an ellipsis."""
    return text if text is None or len(text) <= limit else text[:limit - 1] + "\u2026"


def _chat_cut(text: str) -> str:
    """The escaped text within CHAT_TEXT_MAX, a cut marked with an ellipsis and never inside an escaped entity
    (`&amp;` cut to `&a` showed as typed)."""
    if len(text) <= CHAT_TEXT_MAX:
        return text
    cut = text[:CHAT_TEXT_MAX - 1]
    entity = cut.rfind("&")
    if entity >= len(cut) - 4 and ";" not in cut[entity:]:  # an entity is at most 5 characters: &amp; &lt; &gt;
        cut = cut[:entity]
    return cut + "\u2026"


def calendar_event_id(announcement_id: str) -> str:
    """The team calendar event's id of an announcement, chosen by the app (session 27): `announcement` and the
    announcement's uuid without its dashes (Google's client-chosen id; leave's `calendar_event_id` idiom)."""
    from chalicelib.providers.calendar import client_event_id

    return client_event_id("announcement", announcement_id)


def _send_calendar(ctx, announcement: dict, spec, user_email: str) -> str:
    """The announcement's one event on the team calendar, with the id the app chooses (session 27): an insert that
    meets Google's 409 `duplicate` (made by an earlier distribution, or by one whose answer was lost) takes that
    event and brings it to what is asked now (a PUT, `status: confirmed`: Google keeps a deleted event as
    `cancelled` and refuses its id to an insert), never making a second one."""
    from chalicelib.providers.calendar import CalendarError, get_calendar, team_calendar_id

    calendar = get_calendar(db=ctx.db)
    if calendar is None:
        raise ServiceUnavailable("The calendar is not configured")
    event = {**_calendar_event(announcement, spec), "id": calendar_event_id(announcement["id"])}
    try:
        return calendar.insert_event(user_email, team_calendar_id(), event)["id"]
    except CalendarError as exc:
        if exc.status != 409 or exc.reason != "duplicate":
            raise
    fields = {key: value for key, value in event.items() if key != "id"}
    calendar.update_event(user_email, team_calendar_id(), event["id"], {**fields, "status": "confirmed"})
    return event["id"]


def _send_email(ctx, announcement: dict) -> str:
    from chalicelib.providers.mail import get_mail

    settings = ctx.settings
    address = _configured(settings.announcements_email_to, settings.provider_mode("mail"), SANDBOX_EMAIL_TO,
                          "announcements e-mail address (ANNOUNCEMENTS_EMAIL_TO)")
    text = announcement["content"]
    if announcement.get("author_name"):
        text = f"{text}\n\n— {announcement['author_name']}"
    return get_mail(db=ctx.db).send(to=[address], subject=f"Announcement: {announcement['title']}", text=text)


# announcement_distributions.external_id: a channel's provider id that it cannot keep is none (core.serialize.kept_id;
# session 30: the rows' insert failed after every channel had gone out, and the retry sent them all again)
EXTERNAL_ID_MAX = 500


def distribute(ctx, *, announcement_id: str, data) -> dict:
    """Send to each channel asked for; answer `{channel: {status, external_id} | {status: failed, error}}`."""
    channels = [name for name in ("chat", "calendar", "email") if getattr(data, name)]
    if not channels:
        raise BadRequest("Name at least one channel: chat, calendar or email",
                         details=[{"field": "body", "message": "no channel requested"}])
    announcement = load_announcement(ctx, announcement_id)
    _author_or_executive(ctx, announcement, "distribute")
    record = one_record(ctx.db, ctx.user_id, announcement_id)
    user_email = ctx.principal.user.email
    ctx.release_connection()  # no transaction is held open while the providers answer
    results: dict[str, dict] = {}
    rows = []
    for channel in channels:
        try:
            # a savepoint each: a sandbox provider's failed write (its outbox row) fails that channel only, and
            # leaves the session usable for the others and for the record below (it answered 500)
            with ctx.db.begin_nested():
                if channel == "chat":
                    external_id = _send_chat(ctx, record)
                elif channel == "calendar":
                    external_id = _send_calendar(ctx, record, data.calendar, user_email)
                else:
                    external_id = _send_email(ctx, record)
            external_id = kept_id(external_id, EXTERNAL_ID_MAX)  # the row keeps it, or none (session 30)
            results[channel] = {"status": "sent", "external_id": external_id}
            rows.append({"channel": channel, "status": "sent", "external_id": external_id, "error": None})
        except DomainError as exc:
            detail = exc.extra.get("detail") if exc.extra else None
            error = f"{exc.message}: {detail}" if detail and detail != exc.message else exc.message
            results[channel] = {"status": "failed", "error": error}
            rows.append({"channel": channel, "status": "failed", "external_id": None, "error": error})
        except Exception as exc:  # noqa: BLE001 - a provider's unexpected failure is this channel's failure only
            log.exception("announcement distribution to %s failed", channel)
            results[channel] = {"status": "failed", "error": f"Unexpected error: {type(exc).__name__}"}
            rows.append({"channel": channel, "status": "failed", "external_id": None,
                         "error": results[channel]["error"]})
    if lock_row(ctx.db, Announcement, announcement_id) is None:  # deleted while the providers answered: what
        if "calendar" in results:                                 # was sent is answered, nothing to record it on
            # the delete removed no event when no row named the calendar yet (or removed it before this insert made
            # it again): the one this distribution made, or may have made (a `failed` may be a lost answer), leaves
            # the team calendar after this commit, as the delete's would (session 32; it stayed there for good)
            event_ids = [calendar_event_id(announcement_id)]
            event_ids += [results["calendar"]["external_id"]] if results["calendar"].get("external_id") else []
            ids = list(dict.fromkeys(event_ids))
            ctx.after_commit(lambda: _remove_calendar_events(announcement_id, ids, user_email))
        return {"results": results}
    now = utcnow()
    insert_rows(ctx.db, AnnouncementDistribution, [
        {**row, "announcement_id": announcement_id, "sent_by": ctx.user_id, "sent_at": now} for row in rows])
    return {"results": results}


# ---------------------------------------------------------------- the client portal

PORTAL_ANNOUNCEMENT_LIMIT = 20  # document 3: the latest 20 of category `company`


def portal_announcements(db) -> list[dict]:
    """The latest 20 announcements of category `company` (one query; no author ids or read receipts)."""
    from chalicelib.core.query import record_rows

    return record_rows(db, portal_announcements_select())


def portal_announcements_select(limit: int = PORTAL_ANNOUNCEMENT_LIMIT):
    """The read of `portal_announcements` (its records' fields), for a record_sets statement."""
    return (select(Announcement.id, Announcement.title, Announcement.content, Announcement.category,
                   Announcement.attachment_url, Announcement.attachment_name, Announcement.created_at)
            .where(Announcement.category == "company")
            .order_by(Announcement.created_at.desc(), Announcement.id.desc()).limit(limit))
