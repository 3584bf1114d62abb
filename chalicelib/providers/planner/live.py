"""Productive (api.productive.io, JSON:API) through `requests`: `X-Auth-Token` and `X-Organization-Id`
headers, `application/vnd.api+json` bodies, `page[number]` / `page[size]` paging (meta.total_pages).
A token is checked with `GET /organization_memberships` (which needs no organisation id and names the
organisation). 429: Retry-After honoured (providers.http); a refused token is a 400 with Productive's message;
other errors are 502 with it.

Wire choices, checked against Productive's documents (developer.productive.io/bookings.html,
developer.productive.io/reference/resources/bookings):
- A leave booking is an absence booking: `POST /bookings` with `started_on` / `ended_on` (YYYY-MM-DD), the
  person and the absence event as JSON:API to-one relationships `person` (type `people`) and `event` (type
  `events`: an absence category, "required if you are making a Timeoff/Event booking"; leave names
  PLANNER_ABSENCE_EVENT_ID, chalicelib.providers.planner.absence_event_id), and the "per day" booking
  method (`booking_method_id: 1`), which the document says requires both `hours` (hours a day) and `time`
  (minutes a day): both are sent, `time` the whole minutes of `hours`, exact and half up (base.minutes_per_day).
- People (developer.productive.io/people.html): `GET /people` lists client contacts, placeholders and
  deactivated people too; `filter[status]=1` (active) and `filter[person_type]=1` (user) keep the staff the
  sandbox answers, so a contact or a deactivated person sharing an e-mail is never mapped to a user.
- A booking made for a leave request is looked for (`find_booking`, a retry after a lost answer; session 27) with
  `GET /bookings` filtered by `filter[person_id]`, `filter[event_id]` and the dates (`filter[after]` /
  `filter[before]`, a day wider on each side so that an inclusive or exclusive reading of either keeps the
  booking), paged as people are; the booking taken is the one of exactly those `started_on` and `ended_on`
  whose `note` holds the note sent (the note names the request; held, not equal, so that a note Productive
  answers wrapped as rich text still matches).
- Errors are JSON:API `{errors: [{status, title, detail}]}`: the details (else titles) are the message.
- An answer outside those documents' shapes is the provider's failure, a 502 naming what cannot be read, never a
  500 (session 30): `data` that is not a list of resource objects (or, for a booking made, not one object), a
  resource whose `attributes` is not an object, an id that is no string or number or longer than the column it
  goes to (a person's 100 characters, a booking's 200), a `meta` that is not an object or a `total_pages` that is
  no whole number (`int("abc")`, `.get` on a list: a 500 on the user-mapping sync, the leave booking's job an
  "Unexpected error"). A person's e-mail or name that is no string reads as none, as the ledger's employees'; a
  person whose id cannot be kept is left out of the listing, as the ledger's employees are (session 31: the whole
  listing was that 502, so one such person stopped every other from being mapped).
"""
from __future__ import annotations

import os
from datetime import date, timedelta
from decimal import Decimal

from chalicelib.core.errors import BadGateway, BadRequest
from chalicelib.core.settings import get_settings
from chalicelib.providers import http

from .base import PlannerProvider, minutes_per_day

DEFAULT_BASE_URL = "https://api.productive.io/api/v2"
JSONAPI = "application/vnd.api+json"
PAGE_SIZE = 200
MAX_PAGES = 50  # pages of people read at most (10 000 people); more is a 502, never an endless loop
NAME = "The resource planner"
PEOPLE_FILTER = {"filter[status]": 1, "filter[person_type]": 1}  # active users (not contacts, placeholders)


def productive_message(response) -> str:
    try:
        body = http.read_json(response)  # no NUL, no lone surrogate (session 30)
    except ValueError:
        body = None
    errors = body.get("errors") if isinstance(body, dict) else None  # a JSON list was an AttributeError (a 500)
    errors = errors if isinstance(errors, list) else []
    details = [e.get("detail") or e.get("title") for e in errors if isinstance(e, dict)]
    return "; ".join(d for d in details if d) or f"HTTP {response.status_code}"


def _document(response) -> dict:
    """A JSON:API document: an answer that is not JSON or not an object is the provider's failure (502; session
    29: `.json() or {}` raised ValueError or AttributeError, a 500)."""
    body = http.json_body(response, NAME)
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise BadGateway(f"{NAME} answered a body that is not a JSON:API document")
    return body


PERSON_ID_MAX = 100  # connections' user_mappings.planner_id
BOOKING_ID_MAX = 200  # leave_requests.planner_booking_id


def _resources(body: dict, what: str) -> list[dict]:
    """A listing's `data`: JSON:API resource objects (none when absent), else a 502 naming `what`."""
    return http.objects(body.get("data"), NAME, what)


def _attributes(item: dict, what: str) -> dict:
    """A resource's `attributes` (none when absent); one that is not an object is a 502."""
    return http.one_object(item.get("attributes"), f"{NAME} answered {what} whose attributes are not an object")


def _id(value, what: str, limit: int) -> str:
    """A resource id (JSON:API: a string; a number is read as its digits) that a column of `limit` characters keeps
    (providers.http.json_id), else a 502."""
    kept = http.json_id(value, limit)
    if kept is None:
        raise BadGateway(f"{NAME} answered {what} whose id cannot be read")
    return kept


def _to_one(item: dict, name: str) -> dict:
    """The resource identifier of a to-one relationship `name` (`relationships.<name>.data`), {} when absent; a
    relationship outside JSON:API's shape is a 502."""
    relationships = item.get("relationships") or {}
    relation = relationships.get(name) if isinstance(relationships, dict) else None
    data = (relation.get("data") if isinstance(relation, dict) else relation) or {}
    if not isinstance(relationships, dict) or not isinstance(data, dict):
        raise BadGateway(f"{NAME} answered a relationship ({name}) that cannot be read")
    return data


def _total_pages(body: dict) -> int:
    """`meta.total_pages`: 1 when absent (or 0, as before); a `meta` that is not an object or a count that is no
    whole number ("abc", an object, true, 2.5, NaN, Infinity) is a 502."""
    meta = body.get("meta")
    if meta is None:
        return 1
    if not isinstance(meta, dict):
        raise BadGateway(f"{NAME} answered paging (meta) that is not an object")
    value = meta.get("total_pages")
    if value is None or value == 0:
        return 1
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            pass
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadGateway(f"{NAME} answered a page count (meta.total_pages) that cannot be read")
    return value


class ProductivePlanner(PlannerProvider):
    def __init__(self, *, api_token: str, organization_id: str | None, base_url: str | None = None) -> None:
        self.api_token, self.organization_id = api_token, organization_id
        self.base_url = (base_url or os.environ.get("PLANNER_API_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")

    def _call(self, method: str, path: str, **kwargs):
        headers = {"X-Auth-Token": self.api_token, "Content-Type": JSONAPI, "Accept": JSONAPI}
        if self.organization_id:
            headers["X-Organization-Id"] = str(self.organization_id)
        response = http.send(method, f"{self.base_url}{path}", name=NAME,
                             max_wait=get_settings().ledger_max_retry_wait, headers=headers, **kwargs)
        if response.status_code in (401, 403):
            raise BadRequest(f"The resource planner refused the token: {productive_message(response)}")
        if response.status_code >= 400 and not (method == "DELETE" and response.status_code == 404):
            raise BadGateway(f"The resource planner refused the request: {productive_message(response)}")
        return response

    def verify(self) -> dict:
        body = _document(self._call("GET", "/organization_memberships", params={"include": "organization"}))
        memberships = _resources(body, "organisation memberships")
        if not memberships:
            raise BadRequest("The resource planner refused the token: it belongs to no organisation")
        org = _to_one(memberships[0], "organization")
        org_id = _id(org.get("id"), "an organisation", PERSON_ID_MAX) if org.get("id") is not None else None
        names = {item.get("id"): http.text(_attributes(item, "an organisation").get("name"))
                 for item in http.objects(body.get("included"), NAME, "included resources")
                 if item.get("type") == "organizations"}
        self.organization_id = org_id
        return {"organization_id": org_id, "org_name": names.get(org_id)}

    def list_people(self) -> list[dict]:
        people = []
        for page in range(1, MAX_PAGES + 1):
            body = _document(self._call("GET", "/people", params={**PEOPLE_FILTER, "page[number]": page,
                                                                   "page[size]": PAGE_SIZE}))
            for item in _resources(body, "people"):
                attributes = _attributes(item, "a person")
                # a person whose id cannot be kept (none, no string or number, past user_mappings' column) cannot be
                # mapped: left out, as the ledger's employees are (session 31; the whole listing was a 502 before)
                person_id = http.json_id(item.get("id"), PERSON_ID_MAX)
                if person_id is None:
                    continue
                email = http.text(attributes.get("email"))
                people.append({"id": person_id,
                               "email": (email or "").strip().lower() or None,
                               "name": " ".join(p for p in (http.text(attributes.get("first_name")),
                                                            http.text(attributes.get("last_name"))) if p)})
            if page >= _total_pages(body):
                return people
        raise BadGateway("The resource planner answered too many pages of people")

    def create_booking(self, *, person_id: str, started_on: str, ended_on: str,
                       hours_per_day: float | Decimal = 8.0, note: str | None = None,
                       event_id: str | None = None) -> dict:
        relationships = {"person": {"data": {"type": "people", "id": str(person_id)}}}
        if event_id:
            relationships["event"] = {"data": {"type": "events", "id": str(event_id)}}
        body = {"data": {"type": "bookings", "attributes": {
            "started_on": started_on, "ended_on": ended_on, "booking_method_id": 1,
            "hours": float(hours_per_day), "time": minutes_per_day(hours_per_day),
            **({"note": note} if note else {})},
            "relationships": relationships}}
        made = _document(self._call("POST", "/bookings", json=body))
        data = made.get("data") or {}
        if not isinstance(data, dict):
            raise BadGateway("The resource planner answered a booking that is not a resource object")
        if not data.get("id"):
            raise BadGateway("The resource planner answered no booking id")
        return {"id": _id(data["id"], "a booking", BOOKING_ID_MAX)}

    def find_booking(self, *, person_id: str, started_on: str, ended_on: str, note: str,
                     event_id: str | None = None) -> dict | None:
        # the day before and the day after (the filters are exclusive), within the calendar's first and last day (a
        # leave from 0001-01-01 overflowed: session 28)
        start, end = date.fromisoformat(started_on), date.fromisoformat(ended_on)
        params = {"filter[person_id]": str(person_id),
                  "filter[after]": (start - timedelta(days=1) if start > date.min else start).isoformat(),
                  "filter[before]": (end + timedelta(days=1) if end < date.max else end).isoformat(),
                  "page[size]": PAGE_SIZE}
        if event_id:
            params["filter[event_id]"] = str(event_id)
        for page in range(1, MAX_PAGES + 1):
            body = _document(self._call("GET", "/bookings", params={**params, "page[number]": page}))
            for item in _resources(body, "bookings"):
                attributes = _attributes(item, "a booking")
                if ((attributes.get("started_on"), attributes.get("ended_on")) == (started_on, ended_on)
                        and note in str(attributes.get("note") or "") and item.get("id")):
                    return {"id": _id(item["id"], "a booking", BOOKING_ID_MAX)}
            if page >= _total_pages(body):
                return None
        raise BadGateway("The resource planner answered too many pages of bookings")

    def delete_booking(self, booking_id: str) -> None:
        self._call("DELETE", f"/bookings/{http.segment(booking_id)}")
