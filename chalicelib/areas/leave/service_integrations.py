"""The integrations of an approved leave request (document 2, Events): the ledger's leave application, the
planner's booking, an event on the team calendar and a chat message; reversed when an approved request is
cancelled.

Each runs after the approval is committed, with no transaction held open while a provider answers, and on its
own: a failure is recorded in `integration_errors[<name>]` and does not stop the others; the request stays
approved. An integration whose provider is not configured (mode `off`, no connection, no mapping of the user) is
recorded as skipped in the same place (`Not configured: ...`), so that `retry-integrations` runs it once
configured. A success stores the provider's id (`ledger_leave_application_id`, `planner_booking_id`,
`calendar_event_id`, `chat_message_ts`) and clears that integration's error. Retry re-runs exactly the
integrations without an id. A request cancelled while its integrations ran is reversed when they answer.

One run at a time (docs/decisions/leave.md, Integrations): a run, and the reversal of a cancellation, first
claims the request (`claim`: one conditional UPDATE of `integrations_running_since`, committed before any
provider is called) and lets the claim go in the short transaction that records its outcome. A second run finds
the claim: a retry answers 409, the approval's own run and a reversal do nothing (the run holding the claim
covers them: it reverses everything with an id when it finds the request cancelled). A claim older than
STALE_CLAIM is a dead run's and is taken over. What a provider made (or undid) is recorded as soon as it answers,
in a short transaction of its own under the claim (`_keep_made`, `_keep_undone`; session 32): a run stopped half way
(the function's timeout) keeps the ids of what it made, so neither a retry nor a cancellation loses them.

The ledger's leave application carries an idempotency key (docs/decisions/leave.md, Integrations): the request's
id and a digest of the application. A request is applied once (its id kept; a cancelled request never runs
again), so a run retried after the ledger made the application but its answer was lost (a timeout) gets the same
application back, not a second one, while the ledger still holds the key (Xero: 6 minutes). Its hours per day
depend on the public holidays of the requester's region when they are counted, so since session 28 they are
counted once, kept on the request before the first call (`ledger_units`, `_keep_ledger_units`) and sent unchanged
by every retry: a holiday entered, or the requester moved, in between changes neither the body nor the key.

The planner's booking and the calendar's event have no such key; since session 27 a run retried after the
provider made one but its answer was lost does not make a second one (which a cancellation never removed): the
team calendar's event is inserted with an id derived from the request (`calendar_event_id`; Google takes a
client-chosen id and answers 409 `duplicate` when the calendar holds it, which the retry takes as its own), and
the planner's booking, whose note names the request, is looked for (same person, dates, absence event and note)
before a retry books (`_planner`: a retry by hand, or a run of a request whose planner outcome was recorded).
A cancelled request's booking or event without an id whose last attempt failed is looked for the same ways and
removed by its reversal (`_lost`, `FIND_REVERSE`: the cancellation's, the run's, the job's and the retry route's).
"""
from __future__ import annotations

import logging
from datetime import timedelta
from decimal import ROUND_CEILING, ROUND_DOWN, Decimal

from sqlalchemy import and_, func, or_, select

from chalicelib.core.context import job_context
from chalicelib.core.errors import BadGateway, DomainError, ServiceUnavailable
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import claim_row, let_go, lock_row
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.models import Squad, User
from chalicelib.core.serialize import kept_id
from chalicelib.providers.chat.base import escape
from chalicelib.providers.ledger.base import idempotency_key

from .models import INTEGRATIONS, LeaveRequest

log = logging.getLogger("wms.leave")
SANDBOX_CHAT_CHANNEL = "C_LEAVE"
ID_FIELDS = {"ledger": "ledger_leave_application_id", "planner": "planner_booking_id",
             "calendar": "calendar_event_id", "chat": "chat_message_ts"}
# A claim older than this is a dead run's (its function timed out or crashed before letting go) and is taken over.
# Far above the longest live run: the leave functions stop after 60 s, jobs after 120 s (infra/areas.json).
STALE_CLAIM = timedelta(minutes=10)
# What a cancellation reverses and can fail to: the chat post is never reversed (its cancellation is posted beside
# it and its ts kept), so a request left with only a chat ts has nothing to reverse (session 26).
REVERSIBLE = ("ledger", "planner", "calendar")
# What a reversal can find without an id (session 27): an integration whose last attempt failed (its error recorded,
# no id kept: a timeout after the provider made it) is looked for with what the run made it with: the calendar
# event by the id derived from the request, the planner booking by `find_booking`. A skip (`Not configured: ...`)
# made nothing and is not looked for.
LOOKED_FOR = ("planner", "calendar")
SKIPPED = "Not configured"
# What a provider being asked shows until its answer is recorded (session 32, docs/decisions/leave.md, "A provider
# asked when the run stopped"): written before each call, in the transaction that commits the claim (the first) or
# the one that records the previous provider's answer (`_keep`), and replaced by the run's outcome. Left standing
# only by a run the function's end stopped inside that call: the provider may have made it. Not a skip: the planner's
# booking and the calendar's event are looked for (`_lost`); the ledger's application, which cannot be looked for
# (no lookup by employee and dates), is not booked again by a retry (`ledger_interrupted`, INTERRUPTED_LEDGER).
INTERRUPTED = "Asked, no answer recorded (in progress, or the run stopped)"
INTERRUPTED_LEDGER = ("The leave ledger was asked for this request's leave application when its run stopped, and "
                      "its answer was never recorded: it may have made the application, and booking it again would "
                      "deduct the leave twice. Check the requester's leave in Xero; cancel this request to withdraw "
                      "it (rejecting in Xero any application it made), then file it again")
# A failed reversal of a cancelled request is tried again by `leave-reverse-abandoned` only when its last attempt
# (`updated_at`: every reversal records its outcome and lets the claim go, which bumps it; a claim does not) is older
# than this: a provider that keeps failing is asked once an hour per request, not every 15 minutes (session 26).
RETRY_REVERSAL_AFTER = timedelta(hours=1)
# A reversal is recorded at most this many times by the cancellation and the job (`reversal_attempts`, leave_0006):
# the job leaves a request whose reversal failed that often, and the executives who retry leave integrations are
# told once, by the attempt that reaches it; a retry by hand still reverses it (session 27).
REVERSAL_ATTEMPTS = 5
# A cancelled request whose reversal never recorded anything (its function died between the cancellation's commit
# and its claim) is taken by the job once its cancellation is older than this: the cancellation's own reversal
# claims the request right after the commit, within the leave functions' 60 s, so none is raced (session 27).
NEVER_REVERSED_AFTER = STALE_CLAIM
DEFAULT_MINUTES_A_DAY = 456  # 7.6 hours: the planner booking's time a day when the request names no hours


class NotConfigured(Exception):
    """The provider of an integration is not configured: the integration is skipped (recorded, retried later)."""


def _snapshot(db, request: LeaveRequest) -> dict:
    from chalicelib.areas.calendar import service as calendar_service

    from .service_cache import ledger_employee_ids, planner_person_ids

    user = db.get(User, request.user_id)
    holidays = calendar_service.public_holiday_dates(db, request.start_date, request.end_date, user.location)
    squad = db.get(Squad, user.squad_id) if user.squad_id else None
    return {"id": request.id, "user_id": user.id, "user_email": user.email, "user_name": user.name,
            "ledger_employee_id": ledger_employee_ids(db, [user.id]).get(user.id),
            "planner_person_id": planner_person_ids(db, [user.id]).get(user.id),
            # a posted message's own channel (its cancellation goes beside it), else the squad's channel now
            "chat_channel": (request.chat_channel if request.chat_message_ts else None)
            or (squad.chat_channel_id if squad else None) or request.chat_channel,
            "leave_type_id": request.leave_type_id, "leave_type_name": request.leave_type_name,
            "start_date": request.start_date, "end_date": request.end_date,
            "total_hours": request.total_hours,  # a Decimal (or None): the planner's time a day is exact
            "notes": request.notes, "holidays": holidays, "ledger_units": _sent_units(request.ledger_units),
            **{field: getattr(request, field) for field in ID_FIELDS.values()}}


def _dates(leave: dict) -> str:
    start, end = leave["start_date"].isoformat(), leave["end_date"].isoformat()
    return start if start == end else f"{start} to {end}"


# ---------------------------------------------------------------- one function per integration

def _working_dates(leave: dict) -> list:
    """The request's working days, in order: its weekdays (both dates included) that are not public holidays of the
    requester's region (the calendar area's public holidays)."""
    days, day = [], leave["start_date"]
    while day <= leave["end_date"]:
        if day.weekday() < 5 and day not in leave["holidays"]:
            days.append(day)
        day += timedelta(days=1)
    return days


def _working_days(leave: dict) -> int:
    """How many working days the request has (`_working_dates`)."""
    return len(_working_dates(leave))


def _minutes_a_day(leave: dict) -> int:
    """The planner booking's whole minutes a day (docs/decisions/leave.md, Integrations): the request's hours over
    its working days (at least one), exact in Decimal and rounded up to the minute, so that the booking (one
    booking, the same time each day) is never short of the request: 2.5 hours over four days is 37.5 minutes, 38
    a day. A request without hours books 7.6 hours (456 minutes) a day."""
    if not leave["total_hours"]:
        return DEFAULT_MINUTES_A_DAY
    days = max(_working_days(leave), 1)
    return int((Decimal(leave["total_hours"]) * 60 / days).to_integral_value(rounding=ROUND_CEILING))


LEDGER_UNIT = Decimal("0.0001")  # Xero keeps a leave period's NumberOfUnits to 4 places


def _ledger_units(leave: dict) -> dict[str, Decimal]:
    """The hours the ledger takes, per day (docs/decisions/leave.md, Integrations, session 24): the request's
    total_hours (else 7.6 a working day) over its working days (`_working_dates`: weekdays less the requester's
    public holidays), as the planner booking counts them, so the balance falls by what the app booked. Each day
    gets the hours over the days cut to 4 places and the last day the rest, so that they add up to the request
    exactly (10 hours over three days: 3.3333, 3.3333, 3.3334). A request with no working day puts its hours
    (total_hours, else 7.6) on its first day, as the planner books total_hours, else 7.6, a day."""
    days = _working_dates(leave)
    per_day_default = Decimal(DEFAULT_MINUTES_A_DAY) / 60
    if not days:
        return {leave["start_date"].isoformat(): Decimal(leave["total_hours"] or per_day_default)}
    total = Decimal(leave["total_hours"]) if leave["total_hours"] else per_day_default * len(days)
    each = (total / len(days)).quantize(LEDGER_UNIT, rounding=ROUND_DOWN)
    units = {day.isoformat(): each for day in days}
    units[days[-1].isoformat()] = total - each * (len(days) - 1)
    return units


def _sent_units(kept: dict | None) -> dict[str, Decimal] | None:
    """The hours per day a request's leave application was first sent with (`ledger_units`, kept as decimal strings
    so that they come back exactly as sent: the same body, the same idempotency key); None when never sent."""
    return None if kept is None else {day: Decimal(hours) for day, hours in kept.items()}


def _keep_ledger_units(db, request: LeaveRequest, leave: dict) -> bool:
    """Before a run calls the ledger (session 28): a request that has never been sent to it gets its hours per day
    counted now (`_ledger_units`: today's holidays and the requester's region) and kept on the request, committed
    with the claim before any provider is called; every later attempt sends those, whatever holidays or location
    change meanwhile, so a retry after a lost answer carries the first attempt's body and idempotency key. A
    requester without a ledger mapping is skipped and keeps nothing. Answers whether this run kept them."""
    if leave["ledger_units"] is not None or not leave["ledger_employee_id"]:
        return False
    request.ledger_units = {day: str(hours) for day, hours in _ledger_units(leave).items()}
    leave["ledger_units"] = _sent_units(request.ledger_units)
    db.flush()
    return True


def _configured(get_provider, ctx):
    """The provider `get_provider(db)` answers; NotConfigured when it is switched off or lacks its settings."""
    try:
        return get_provider(ctx.db)
    except ServiceUnavailable as exc:
        raise NotConfigured(f"Not configured: {exc.message}") from exc


def _payroll(ctx):
    from chalicelib.providers.payroll import get_payroll

    return _configured(get_payroll, ctx)


def _ledger(ctx, leave: dict) -> str:
    if not leave["ledger_employee_id"]:
        raise NotConfigured("Not configured: the requester has no ledger employee mapping")
    application = {"employee_id": leave["ledger_employee_id"], "leave_type_id": leave["leave_type_id"],
                   "title": leave["leave_type_name"], "start_date": leave["start_date"].isoformat(),
                   "end_date": leave["end_date"].isoformat(), "description": leave["notes"],
                   "units": leave["ledger_units"]}  # the hours the app counted (kept: `_keep_ledger_units`)
    return _payroll(ctx).create_leave_application(
        **application, idempotency_key=idempotency_key("wms-leave", leave["id"], body=application))


def _ledger_reverse(ctx, leave: dict) -> None:
    """Reject the request's leave application. A rejection the ledger refuses (502) may be one an earlier attempt
    made whose answer was lost (a timeout: the reversal recorded failed, the id kept), which Xero refuses to make
    twice (its reject takes a REQUESTED or SCHEDULED application only): the application's state is read then, and one
    the ledger holds as REJECTED is this reversal done (session 32, docs/decisions/leave.md, "A rejection whose answer
    was lost"). Any other state, or a read that fails, leaves the refusal as the reversal's failure, as before. Read
    only on a refusal: a reversal that succeeds costs no second call; a timeout is not read at once (the ledger that
    did not answer the rejection is asked again by the retry, the job's an hour later)."""
    payroll = _payroll(ctx)
    application_id = leave["ledger_leave_application_id"]
    try:
        payroll.reject_leave_application(application_id)
    except BadGateway:
        if not _already_rejected(payroll, application_id):
            raise  # a real refusal: the reversal's failure


def _already_rejected(payroll, application_id: str) -> bool:
    """Whether the ledger holds the application as REJECTED (`leave_application_status`); a read that fails (the
    ledger unreachable, refusing, or answering what cannot be read) is not taken as rejected."""
    try:
        return payroll.leave_application_status(application_id) == "REJECTED"
    except DomainError as exc:
        log.warning("leave application %s: its state could not be read after a refused rejection: %s",
                    application_id, exc.message)
        return False


def _planner_provider(ctx):
    from chalicelib.providers.planner import get_planner

    return _configured(get_planner, ctx)


def _planner(ctx, leave: dict) -> str:
    """An absence booking (Productive: a booking linked to an event, the absence category): without the category
    (PLANNER_ABSENCE_EVENT_ID; the sandbox has its default) it is skipped as `Not configured`, never sent bare.
    Its note names the request (`Leave: <type> (ref <request id>)`), so that a retry (`leave["retry"]`) first
    looks for the booking an earlier attempt made but whose answer was lost and takes it (session 27)."""
    if not leave["planner_person_id"]:
        raise NotConfigured("Not configured: the requester has no planner person mapping")
    planner = _planner_provider(ctx)
    booking = _booking(leave)
    made = planner.find_booking(**booking) if leave.get("retry") else None
    if made is None:
        per_day = Decimal(_minutes_a_day(leave)) / 60  # whole minutes: the planner's own adapter takes them exactly
        made = planner.create_booking(**booking, hours_per_day=per_day)
    return str(made["id"])


def _booking(leave: dict) -> dict:
    """The planner booking of a request as `_planner` makes it and `find_booking` looks for it (its note names the
    request); NotConfigured without the absence category."""
    from chalicelib.providers.planner import absence_event_id

    event_id = absence_event_id()
    if not event_id:
        raise NotConfigured("Not configured: the planner's absence category for leave (PLANNER_ABSENCE_EVENT_ID)")
    return {"person_id": leave["planner_person_id"], "started_on": leave["start_date"].isoformat(),
            "ended_on": leave["end_date"].isoformat(), "event_id": event_id,
            "note": f"Leave: {leave['leave_type_name']} (ref {leave['id']})"}


def _planner_reverse(ctx, leave: dict) -> None:
    _planner_provider(ctx).delete_booking(leave["planner_booking_id"])


def _planner_find_reverse(ctx, leave: dict) -> None:
    """The reversal of a booking made whose answer was lost (no id kept, session 27): the request's booking, looked
    for as a retry looks for it, removed when found; none found is nothing to reverse."""
    if not leave["planner_person_id"]:
        raise NotConfigured("Not configured: the requester has no planner person mapping")
    planner = _planner_provider(ctx)
    made = planner.find_booking(**_booking(leave))
    if made is not None:
        planner.delete_booking(str(made["id"]))


def _calendar_provider(ctx):
    from chalicelib.providers.calendar import get_calendar

    calendar = get_calendar(db=ctx.db)
    if calendar is None:
        raise NotConfigured("Not configured: the calendar (CALENDAR_MODE)")
    return calendar


def _calendar(ctx, leave: dict) -> str:
    """The team calendar's event, with the id the app chooses (`calendar_event_id`): an insert retried after one
    whose answer was lost meets Google's 409 `duplicate` and takes that event (session 27)."""
    from chalicelib.providers.calendar import CalendarError, team_calendar_id

    # the team calendar is read by everyone with calendar:view: the person and the dates only, never the notes
    # or the leave type (personal, as in the calendar's synthetic leave events; docs/decisions/leave.md)
    event = {"summary": f"On leave — {leave['user_name']}", "description": f"On leave ({_dates(leave)})",
             "start": {"date": leave["start_date"].isoformat()},
             "end": {"date": (leave["end_date"] + timedelta(days=1)).isoformat()}}  # Google's end is exclusive
    event["id"] = calendar_event_id(leave["id"])
    try:
        return _calendar_provider(ctx).insert_event(leave["user_email"], team_calendar_id(), event)["id"]
    except CalendarError as exc:
        if exc.status == 409 and exc.reason == "duplicate":  # made by an earlier attempt whose answer was lost
            return event["id"]
        raise


def calendar_event_id(request_id: str) -> str:
    """The team calendar event's id of a request, chosen by the app (session 27): `leave` and the request's uuid
    without its dashes, else a digest of the id; both in Google's alphabet for a client id (base32hex: a-v, 0-9)."""
    from chalicelib.providers.calendar import client_event_id

    return client_event_id("leave", request_id)


def _calendar_reverse(ctx, leave: dict) -> None:
    _delete_event(ctx, leave, leave["calendar_event_id"])


def _delete_event(ctx, leave: dict, event_id: str) -> None:
    from chalicelib.providers.calendar import CalendarError, team_calendar_id

    try:
        _calendar_provider(ctx).delete_event(leave["user_email"], team_calendar_id(), event_id)
    except CalendarError as exc:
        if exc.status != 404:  # already gone (Google's 410 is a 404 here): reversed
            raise


def _calendar_find_reverse(ctx, leave: dict) -> None:
    """The reversal of an event made whose answer was lost (no id kept, session 27): the event of the id derived
    from the request deleted; none there (404, or Google's 410 of one deleted) is nothing to reverse."""
    _delete_event(ctx, leave, calendar_event_id(leave["id"]))


def _chat_target(ctx, leave: dict):
    from chalicelib.providers.chat import get_chat

    try:
        chat = get_chat(db=ctx.db)
    except ServiceUnavailable as exc:
        raise NotConfigured("Not configured: team chat (CHAT_MODE)") from exc
    channel = leave["chat_channel"]
    if not channel and ctx.settings.provider_mode("chat") == "sandbox":
        channel = SANDBOX_CHAT_CHANNEL
    if not channel:
        raise NotConfigured("Not configured: the requester's squad has no chat channel")
    return chat, channel


def _chat(ctx, leave: dict) -> str:
    chat, channel = _chat_target(ctx, leave)
    leave["chat_channel"] = channel
    return chat.post_message(channel=channel,
                             text=f":palm_tree: {escape(leave['user_name'])} on leave, {_dates(leave)} (approved)")["ts"]


def _chat_reverse(ctx, leave: dict) -> None:
    chat, channel = _chat_target(ctx, leave)
    chat.post_message(channel=channel, text=f":x: Cancelled — {escape(leave['user_name'])} on leave, {_dates(leave)}")


RUN = {"ledger": _ledger, "planner": _planner, "calendar": _calendar, "chat": _chat}
REVERSE = {"ledger": _ledger_reverse, "planner": _planner_reverse, "calendar": _calendar_reverse,
           "chat": _chat_reverse}
FIND_REVERSE = {"planner": _planner_find_reverse, "calendar": _calendar_find_reverse}  # LOOKED_FOR, without an id


# The longest id each integration's column keeps (leave_requests): an id past it, or one that is no string, cannot be
# recorded (session 30: the run's write failed after every integration had run, each outcome lost, the claim left to
# go stale and the next run booking again).
ID_MAX = {"ledger": 200, "planner": 200, "calendar": 200, "chat": 100}


def _attempt(ctx, fn, name: str, leave: dict):
    """(outcome, value): ("ok", id), ("skipped", message) or ("failed", message). An id the request cannot keep is
    that integration's failure (a booking or event then looked for by the reversal, LOOKED_FOR, as a lost answer's);
    a chat post's ts that cannot be kept is none (the post is never reversed, its cancellation is posted beside it)."""
    try:
        made = fn(ctx, leave)
        if made is None or kept_id(made, ID_MAX[name]) is not None:
            return "ok", made
        if name == "chat":
            return "ok", None
        return "failed", f"The {name} answered an id that cannot be kept"
    except NotConfigured as exc:
        return "skipped", str(exc)
    except DomainError as exc:
        detail = exc.extra.get("detail") if exc.extra else None
        return "failed", f"{exc.message}: {detail}" if detail and detail != exc.message else exc.message
    except Exception as exc:  # noqa: BLE001 - one provider's surprise is this integration's failure only
        log.exception("leave integration %s failed", name)
        return "failed", f"Unexpected error: {type(exc).__name__}"


# ---------------------------------------------------------------- running

def _balances_changed(ctx, leave: dict) -> None:
    """The ledger's schedule of the requester changed (an application made or rejected): their cached balances
    are dropped in the transaction that records the outcome (one statement, the ledger not asked), so their next
    read of the balances fetches them (docs/decisions/leave.md, Types, balances and the leave ledger)."""
    from .service_cache import mark_balances_stale

    mark_balances_stale(ctx.db, leave["user_id"])


def _claim_is_stale(now):
    """The request's claim is a dead run's: older than STALE_CLAIM."""
    return LeaveRequest.integrations_running_since < now - STALE_CLAIM


def claim(db, request_id: str, status: str = "approved"):
    """Claim the request (in `status`) for one run of its integrations or of their reversal: one conditional
    UPDATE, taken only when no run holds it (no claim, or one older than STALE_CLAIM). Answers the claim's time,
    the run's token, or None: another run holds the request (or it is not in `status`). A concurrent claimer
    waits on the UPDATE's row lock and then sees the claim; the caller commits it (`release_connection`) before
    calling a provider. `updated_at` is left alone: the claim is no change of the request."""
    claimed = claim_row(db, LeaveRequest, LeaveRequest.integrations_running_since, LeaveRequest.id == request_id,
                        LeaveRequest.status == status, stale=STALE_CLAIM)
    return claimed[0] if claimed else None


def _let_go(request: LeaveRequest, token) -> None:
    """Clear the claim with the outcome, unless a later run took it over (this one outlived STALE_CLAIM)."""
    let_go(request, LeaveRequest.integrations_running_since, token)


def run(ctx, request_id: str, names=None, *, token=None) -> dict:
    """Run the named integrations (default: every one without an id) for an approved request and record the
    outcomes. `token`: the claim the caller took (retry); without one the run claims the request itself and does
    nothing when another run holds it (that run covers what has no id). The claim (and the caller's writes) is
    committed first, so no transaction is held open while the providers answer; the outcome is recorded and the
    claim let go in one short transaction; each provider's success is recorded at once before the next is asked
    (`_keep_made`, session 32). Answers `{name: outcome}`."""
    retried = token is not None  # the retry route's claim
    if token is None:
        token = claim(ctx.db, request_id)
        if token is None:
            return {}
    request = lock_row(ctx.db, LeaveRequest, request_id, missing="Leave request")  # as the previous run left it (the claim holds it now)
    leave = _snapshot(ctx.db, request)
    # a retry by hand, or a run after one that recorded outcomes: an object made whose answer was lost is looked for
    leave["retry"] = retried or bool(request.integration_errors)
    names = [n for n in (names or INTEGRATIONS) if n in RUN and not leave[ID_FIELDS[n]]]
    kept_units = "ledger" in names and _keep_ledger_units(ctx.db, request, leave)
    earlier = dict(request.integration_errors or {})  # what the runs before recorded (the markers replace them)
    if names:  # the first provider marked in flight, committed with the claim (INTERRUPTED)
        request.integration_errors = {**earlier, names[0]: INTERRUPTED}
        ctx.db.flush()
    ctx.release_connection()
    results = {}
    for at, name in enumerate(names):
        results[name] = _attempt(ctx, RUN[name], name, leave)
        # recorded at once, with the next provider marked in flight, before the next provider is asked
        _keep_made(ctx, request_id, name, results[name], leave, asking=(names[at + 1:] or [None])[0])
    outcomes = {name: outcome for name, (outcome, _) in results.items()}
    request = lock_row(ctx.db, LeaveRequest, request_id, missing="Leave request")
    if request.status != "approved":  # cancelled while the providers answered: undo what it made and had made
        # every provider answered: this run's markers give way to what was recorded before it (the reversal
        # records its own outcome; a failure of this run is looked for below, as before)
        errors = dict(request.integration_errors or {})
        for name, (outcome, _) in results.items():
            if outcome != "ok" or errors.get(name) == INTERRUPTED:  # its mark, or what it failed with meanwhile
                errors.pop(name, None)
                if name in earlier:
                    errors[name] = earlier[name]
        request.integration_errors = errors or None
        ctx.db.flush()
        made = {**leave, **{ID_FIELDS[n]: value for n, (outcome, value) in results.items() if outcome == "ok"}}
        # and look for what a failed attempt may have made (this run's, or an earlier one's recorded; session 27)
        made["look_for"] = [name for name in LOOKED_FOR if not made[ID_FIELDS[name]]
                            and (outcomes.get(name) == "failed" or _lost(request, name))]
        ctx.release_connection()  # cancelled is final: the row lock is not held while the providers answer
        _undo(ctx, request_id, made, token)
        return outcomes
    if kept_units and outcomes.get("ledger") == "skipped":  # the ledger switched off: nothing was sent
        request.ledger_units = None
    errors = dict(request.integration_errors or {})
    for name, (outcome, value) in results.items():
        if outcome == "ok":
            setattr(request, ID_FIELDS[name], value)
            errors.pop(name, None)
        else:
            errors[name] = value
    if leave["chat_channel"] and outcomes.get("chat") == "ok":
        request.chat_channel = leave["chat_channel"]
    request.integration_errors = errors or None
    _let_go(request, token)
    ctx.db.flush()
    return outcomes


def _keep_made(ctx, request_id: str, name: str, result: tuple, leave: dict, asking: str | None = None) -> None:
    """Record what a provider made as soon as it answers (session 32, docs/decisions/leave.md, "A run stopped half
    way"): its id on the request, its error cleared (and, for the ledger, the requester's cached balances dropped;
    for chat, the channel posted to), in a short transaction of its own committed before the next provider is
    asked. A run stopped after it (Lambda ends a function at its timeout: no handler runs, the outcome recorded at
    the run's end was never written) keeps the ids of what was made, so a retry, which can only take the claim once
    it is stale (STALE_CLAIM, 10 minutes, longer than Xero keeps the leave application's Idempotency-Key), makes
    none of it again, and a cancellation reverses it. The run's claim stays held; the run's end records the rest
    and lets it go. A failure or a skip is left to the run's end (it made nothing to keep). `asking`: the provider
    asked next, marked in flight (INTERRUPTED) in the same transaction, so a function stopped inside that call leaves
    it looked for (the planner, the calendar) or refused a retry (the ledger); a failure followed by a provider to
    ask is one transaction too (the mark), the last provider's failure none (session 32)."""
    outcome, value = result
    if outcome == "ok" and value is not None:  # a chat ts that cannot be kept is none (`_attempt`)
        _keep(ctx, request_id, name, value, leave, asking=asking)
    elif asking:  # its own mark replaced by what it answered (its failure, its skip, or nothing), with the next's:
        # left standing, a stop in the next call showed this one in flight too (the review of session 32: a ledger
        # that refused or was skipped, then a planner stopped, refused every retry as an interrupted booking)
        _keep(ctx, request_id, None, None, leave, asking=asking, answered=(name, None if outcome == "ok" else value))


def _keep_undone(ctx, request_id: str, name: str, leave: dict) -> None:
    """Record a reversal that succeeded as soon as its provider answers (session 32, as `_keep_made`): the id of what
    was undone cleared and its error with it (and, for the ledger, the requester's cached balances dropped), in a
    short transaction of its own committed before the next provider is asked. A reversal stopped after it (the
    function's timeout) leaves the request naming only what is still to undo: the job that takes the stale claim
    does not undo it again (Xero documents its reject for a REQUESTED or SCHEDULED leave application only: a
    second reject could be refused, and that reversal recorded failed until it gave up). The attempt
    (`reversal_attempts`), the failures and the claim are the reversal's end's to record. The chat post keeps its
    ts (its cancellation is posted beside it): nothing is recorded for it here."""
    _keep(ctx, request_id, name, None, leave)


def _keep(ctx, request_id: str, name: str | None, value: str | None, leave: dict,
          asking: str | None = None, answered: tuple[str, str | None] | None = None) -> None:
    """`_keep_made` (`value` the id made) and `_keep_undone` (None): the id set, the integration's error cleared, for
    the ledger the requester's cached balances dropped (booked or rejected there: stale now), for a chat post made
    the channel; `asking` (a run's next provider) marked in flight; committed, so no transaction nor row lock is
    held while the next provider answers. `name` None: only the mark, and `answered` (a provider that made nothing:
    its name and its error, None for none) in place of that provider's own mark."""
    request = lock_row(ctx.db, LeaveRequest, request_id)
    if request is None:
        return
    errors = dict(request.integration_errors or {})
    if name is not None:
        setattr(request, ID_FIELDS[name], value)
        errors.pop(name, None)
        if name == "ledger":
            _balances_changed(ctx, leave)
        if value is not None and name == "chat" and leave["chat_channel"]:
            request.chat_channel = leave["chat_channel"]
    if answered is not None:
        answered_name, error = answered
        errors.pop(answered_name, None)
        if error is not None:
            errors[answered_name] = error
    if asking is not None:
        errors[asking] = INTERRUPTED
    request.integration_errors = errors or None
    ctx.db.flush()
    ctx.release_connection()


def _undo(ctx, request_id: str, leave: dict, token) -> dict:
    """Reverse each integration with an id in `leave`, and look for and remove each one named in
    `leave["look_for"]` (LOOKED_FOR without an id: made, its answer lost; session 27), with no transaction open (the
    caller released it; each success recorded at once, `_keep_undone`, session 32), then record in one short
    transaction and let the claim go: a reversed integration loses its id (the chat post keeps its ts: the
    cancellation was posted beside it) and its error, a failed reversal
    keeps its id (none for one looked for) and records `Reversal: ...`. Every reversal counts one attempt
    (`reversal_attempts`); a failure at the REVERSAL_ATTEMPTS-th tells the executives who retry leave
    integrations (`_tell_reversal_given_up`)."""
    look_for = set(leave.get("look_for") or ())
    names = [n for n in INTEGRATIONS if leave[ID_FIELDS[n]] or n in look_for]
    results = {}
    for name in names:
        results[name] = _attempt(ctx, REVERSE[name] if leave[ID_FIELDS[name]] else FIND_REVERSE[name], name, leave)
        if results[name][0] == "ok" and name != "chat":  # undone: recorded at once (`_keep_undone`)
            _keep_undone(ctx, request_id, name, leave)
    request = lock_row(ctx.db, LeaveRequest, request_id, missing="Leave request")
    errors = dict(request.integration_errors or {})
    for name, (outcome, value) in results.items():
        kept = outcome != "ok" or name == "chat"
        setattr(request, ID_FIELDS[name], leave[ID_FIELDS[name]] if kept else None)
        if outcome == "ok":
            errors.pop(name, None)
        else:
            errors[name] = f"Reversal: {value}"
    if "chat" in results and leave["chat_channel"] and not request.chat_channel:  # a post the run just made
        request.chat_channel = leave["chat_channel"]
    request.integration_errors = errors or None
    request.reversal_attempts = (request.reversal_attempts or 0) + 1
    failed = [name for name, (outcome, _) in results.items() if outcome != "ok"]
    if failed and request.reversal_attempts == REVERSAL_ATTEMPTS:
        _tell_reversal_given_up(ctx, request, leave, {name: errors[name] for name in failed})
    _let_go(request, token)
    ctx.db.flush()
    return {name: outcome for name, (outcome, _) in results.items()}


def _tell_reversal_given_up(ctx, request: LeaveRequest, leave: dict, errors: dict[str, str]) -> None:
    """The reversal of a cancelled request failed for the REVERSAL_ATTEMPTS-th time: the job asks no more. Told
    once (this attempt only) to the people who retry leave integrations, the callers of `retry-integrations`:
    active executives holding manage:leave (they read every request), as `leave_reversal_failed`."""
    from chalicelib.core.notify import notify_many  # on first use

    from .queries import ENTITY, leave_holders

    handlers = ctx.db.scalars(select(User.id).where(User.access_level == "executive", User.is_active.is_(True),
                                                    User.id.in_(leave_holders("manage"))).order_by(User.id))
    title = (f"Cancelled leave of {leave['user_name']} ({_dates(leave)}) could not be undone after "
             f"{request.reversal_attempts} attempts: {', '.join(errors)}; retry it by hand")
    body = "; ".join(f"{name}: {error}" for name, error in errors.items())
    notify_many(ctx, [{"user_id": user_id, "type": "leave_reversal_failed", "title": title, "body": body,
                       "resource_type": ENTITY, "resource_id": request.id,
                       "action_url": f"/leave/requests/{request.id}"} for user_id in handlers])


def _reversal_failed(request: LeaveRequest, name: str) -> bool:
    return str((request.integration_errors or {}).get(name) or "").startswith("Reversal:")


def _lost(request: LeaveRequest, name: str) -> bool:
    """A planner booking or calendar event that may have been made with its answer lost (session 27): no id kept
    and an error recorded that is not a skip (`Not configured: ...` made nothing): a run's failure, or a failed
    lookup of the reversal (`Reversal: ...`)."""
    error = (request.integration_errors or {}).get(name)
    return (name in LOOKED_FOR and not getattr(request, ID_FIELDS[name]) and bool(error)
            and not str(error).startswith(SKIPPED))


def ledger_interrupted(request: LeaveRequest) -> bool:
    """The ledger was asked for the request's leave application when its run stopped (INTERRUPTED, no id): the
    application may exist, and the idempotency key that would answer it again is forgotten by the time the dead run's
    claim is stale (Xero: 6 minutes; STALE_CLAIM: 10), so a retry would book it twice (session 32)."""
    return (not request.ledger_leave_application_id
            and (request.integration_errors or {}).get("ledger") == INTERRUPTED)


def left_to_reverse(request: LeaveRequest) -> list[str]:
    """What a cancelled request still has to reverse: a ledger, planner or calendar id kept (its reversal failed,
    or never ran), a planner booking or calendar event without an id whose last attempt failed (`_lost`: looked
    for; session 27), and the chat post's cancellation while it is not posted: a chat ts kept with a failed post
    (`Reversal: ...`), or with no reversal recorded yet (`reversal_attempts` 0; session 27). A posted cancellation
    (its error cleared) is never posted again."""
    names = [name for name in REVERSIBLE if getattr(request, ID_FIELDS[name]) or _lost(request, name)]
    if request.chat_message_ts and (not request.reversal_attempts or _reversal_failed(request, "chat")):
        names.append("chat")
    return names


def reverse_again(ctx, request_id: str, *, token=None) -> dict:
    """Reverse what a cancelled request has left (`left_to_reverse`), recorded as `_undo` does: what every reversal
    runs, the cancellation's own first (`reverse_after_commit`), then the job's and the retry route's. `token`: the
    claim the caller took (the retry route); without one it claims the request itself and does nothing when a run
    holds it. What is left is read under the claim, so a reversal that ran since the caller read the request is not run
    again. Nothing left: the claim is let go and nothing is called. Answers `{name: outcome}` ({}: nothing done)."""
    if token is None:
        token = claim(ctx.db, request_id, status="cancelled")
        if token is None:
            return {}
    request = lock_row(ctx.db, LeaveRequest, request_id, missing="Leave request")
    names = left_to_reverse(request) if request.status == "cancelled" else []
    if not names:  # reversed since it was read
        _let_go(request, token)
        ctx.db.flush()
        return {}
    leave = {**_snapshot(ctx.db, request), **{ID_FIELDS[name]: None for name in INTEGRATIONS if name not in names},
             "look_for": [name for name in names if _lost(request, name)]}
    ctx.release_connection()
    return _undo(ctx, request_id, leave, token)


def abandoned_cancellations(db) -> list[str]:
    """What the `leave-reverse-abandoned` job reverses, one read, each with fewer than REVERSAL_ATTEMPTS reversals
    recorded: cancelled requests whose claim is stale (the run that held it stopped before it let go, so the
    cancellation's reversal, which left the request to that run, never ran); cancelled requests with no claim
    whose reversal failed (an id kept with its `Reversal: ...` error, the chat post's failed cancellation
    included) at their last attempt more than RETRY_REVERSAL_AFTER ago; and, since session 27, cancelled requests
    with no claim whose reversal never recorded anything (`reversal_attempts` 0: the function died between the
    cancellation's commit and its claim) holding any id, cancelled more than NEVER_REVERSED_AFTER ago. Their ids,
    at most LIST_LIMIT, oldest claim or attempt first."""
    now = utcnow()
    # a planner booking or calendar event without an id whose last attempt failed (`_lost`; session 27)
    lost = [and_(getattr(LeaveRequest, ID_FIELDS[name]).is_(None),
                 ~LeaveRequest.integration_errors[name].as_string().startswith(SKIPPED))  # NULL: no error, none
            for name in LOOKED_FOR]
    failed = or_(*(and_(getattr(LeaveRequest, ID_FIELDS[name]).is_not(None),
                        LeaveRequest.integration_errors[name].as_string().startswith("Reversal:"))
                   for name in INTEGRATIONS), *lost)
    unclaimed = LeaveRequest.integrations_running_since.is_(None)
    again = and_(unclaimed, LeaveRequest.updated_at < now - RETRY_REVERSAL_AFTER, failed)
    never = and_(unclaimed, LeaveRequest.reversal_attempts == 0,
                 LeaveRequest.cancelled_at < now - NEVER_REVERSED_AFTER,
                 or_(*(getattr(LeaveRequest, field).is_not(None) for field in ID_FIELDS.values()), *lost))
    return list(db.scalars(
        select(LeaveRequest.id)
        .where(LeaveRequest.status == "cancelled", LeaveRequest.reversal_attempts < REVERSAL_ATTEMPTS,
               or_(_claim_is_stale(now), again, never))
        .order_by(func.coalesce(LeaveRequest.integrations_running_since, LeaveRequest.updated_at), LeaveRequest.id)
        .limit(LIST_LIMIT)))


def in_job(fn, request_id: str) -> bool:
    """Run `fn(ctx, request_id)` in a unit of work of its own; a failure is logged (the approval or cancellation
    is committed; a run is retried by hand, a reversal by its job). Answers whether it succeeded: False
    when it raised or answered False."""
    try:
        with job_context() as ctx:
            answer = fn(ctx, request_id)
    except Exception:  # noqa: BLE001 - see the docstring
        log.exception("leave integrations of %s failed", request_id)
        return False
    return answer is not False


def reversal_outcome(request_id: str) -> str:
    """The job's reversal of one request (`reverse_again`, its own unit of work): `reversed` when everything it
    tried succeeded, `failed` when one raised or failed (logged), `skipped` when it did nothing: another run holds
    the request, or nothing is left since the job read it (session 27: that is not counted reversed)."""
    outcomes: dict = {}

    def attempt(ctx, request_id):
        outcomes.update(reverse_again(ctx, request_id))

    if not in_job(attempt, request_id):
        return "failed"
    if not outcomes:
        return "skipped"
    return "reversed" if all(outcome == "ok" for outcome in outcomes.values()) else "failed"


def run_after_commit(ctx, request_id: str) -> None:
    ctx.after_commit(lambda: in_job(run, request_id))


def reverse_after_commit(ctx, request_id: str) -> None:
    """The cancellation's reversal, after its commit: `reverse_again` undoes each integration that succeeded (a chat
    cancellation message for the chat post). It claims the request first: when a run holds it, the run finds the
    request cancelled as its providers answer and reverses everything itself, so this does nothing."""
    ctx.after_commit(lambda: in_job(reverse_again, request_id))
