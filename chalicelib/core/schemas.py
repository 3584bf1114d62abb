"""What every area's request and response models share.

Inputs (request bodies and queries) derive from `Input` and use these field types, never a bare
`bool`, `date`, `datetime` or `float` for money (tests/core/test_input_types.py enforces it):

    Flag          true/false (0 and 1 too, since responses carry flags as 0/1); no strings
    QueryFlag     a query flag: true/false/1/0 (any case); nothing else
    CalendarDate  a `YYYY-MM-DD` date or null, strictly (not a datetime, not a number)
    Timestamp     an ISO 8601 timestamp or null, normalised to UTC, in the representable range
    Id            an id: stripped, non-empty, at most 36 characters
    Name          a name: stripped, 1 to 200 characters
    Text(n)       free text of at most n characters (not stripped)
    Money         an exact decimal amount (14 digits, 2 decimals), never a float or a boolean
    choice(...)   one of the given strings (an enum in the OpenAPI document)

Responses are read models deriving from `Read`, with `Flag01` for the 0/1 flags of the
conventions, `IsoTimestamp` and `IsoDate` for times and dates; a route declares its whole body with
`endpoint(response=...)`, usually an envelope built by `one("task", TaskRead)`,
`many("tasks", TaskRead)` or `paged("tasks", TaskRead)`, or `OkResponse`.
"""

import re
from datetime import date, datetime, timezone
from decimal import Decimal
from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict, StringConstraints, ValidationInfo,
                      WithJsonSchema, create_model, field_validator)

from .query import LIST_LIMIT

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _calendar_date(value: Any) -> Any:
    """Dates are `YYYY-MM-DD` strings (or null); anything else is a 400."""
    if value is None or (isinstance(value, date) and not isinstance(value, datetime)):
        return value
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        raise ValueError("must be a date in the form YYYY-MM-DD")
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError("must be a valid calendar date (YYYY-MM-DD)") from exc


def _utc_timestamp(value: datetime | None) -> datetime | None:
    """A timestamp normalised to UTC (a naive one is taken as UTC); one that leaves the representable
    range once normalised (9999-12-31T23:59:59-12:00, 0001-01-01T00:00:00+14:00) is a 400, never a
    value the database driver fails on."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    try:
        return value.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:
        raise ValueError("must be a timestamp between years 1 and 9999 in UTC") from exc


# An ISO 8601 timestamp (or null), normalised to UTC.
Timestamp = Annotated[datetime | None, AfterValidator(_utc_timestamp)]
Id = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=36)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Search = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
# An e-mail address: one @, a dot in the domain, no spaces, at most 320 characters.
Email = Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=320,
                                         pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
# A `YYYY-MM-DD` date or null, strictly in that form (not a datetime, not a number).
CalendarDate = Annotated[date | None, BeforeValidator(_calendar_date)]


def non_blank(value: str | None) -> str | None:
    """A field validator: text stripped, and not empty once stripped (None passes: see NOT_NULL)."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        raise ValueError("must not be empty")
    return value


class Input(BaseModel):
    """A request body or query: unknown fields ignored (decisions.md section 4).

    `NOT_NULL` names the fields that may be left out but never sent as null (an update may clear an
    optional field with null, never a required one). `changes()` answers the fields the caller sent.
    """

    # defer_build: a model's validator is built on its first use, not at import (cold start: a function
    # builds the few models its request uses, not every model of its area)
    model_config = ConfigDict(extra="ignore", defer_build=True)
    NOT_NULL: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name in cls.NOT_NULL:
            raise ValueError("may not be null")
        return value

    def changes(self) -> dict:
        """`{field: value}` for the fields present in the request, in declaration order."""
        return {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}


# --- input field types --------------------------------------------------------------------------

def _flag(value: Any) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if type(value) is int and value in (0, 1):
        return bool(value)
    raise ValueError("must be true or false (or 1 or 0)")


def _query_flag(value: Any) -> Any:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise ValueError("must be true or false (or 1 or 0)")


def _money(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number")
    if isinstance(value, float):
        return Decimal(repr(value))
    return value


Flag = Annotated[bool, BeforeValidator(_flag)]
QueryFlag = Annotated[bool | None, BeforeValidator(_query_flag),
                      WithJsonSchema({"type": "string", "enum": ["true", "false", "1", "0"]})]
Money = Annotated[Decimal, BeforeValidator(_money), Field(max_digits=14, decimal_places=2, allow_inf_nan=False)]


def Text(max_length: int):  # noqa: N802 - a type, named like one
    """Free text of at most `max_length` characters, kept as sent."""
    return Annotated[str, StringConstraints(max_length=max_length)]


def choice(*values: str):
    """One of `values`: a Literal, so the OpenAPI document lists them as an enum."""
    return Literal[values]


# --- read models --------------------------------------------------------------------------------

Flag01 = Annotated[int, Strict(), Field(ge=0, le=1), WithJsonSchema({"type": "integer", "enum": [0, 1]})]
IsoTimestamp = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$"),
                         WithJsonSchema({"type": "string", "format": "date-time"})]
IsoDate = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$"),
                    WithJsonSchema({"type": "string", "format": "date"})]


class Read(BaseModel):
    """A response record: every field the service answers, declared (an undeclared one is an error in tests)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use, as Input


class OkResponse(Read):
    ok: Literal[True]


# --- read models that more than one area answers ------------------------------------------------
# Declared once here: an area's schemas import only the core (docs/area-contract.md), so a record that one
# area builds and another area's route also answers cannot be imported from the owning area.

# A time entry: the timesheets area builds it; a budget's detail lists its own (budgets.BudgetTimeEntryRead).
class TimeEntryRead(Read):
    id: str
    user_id: str
    date: IsoDate
    hours: float
    task_id: str | None
    project_id: str | None
    budget_id: str | None
    line_item_id: str | None
    billable: Flag01
    status: str
    description: str | None
    submitted_at: IsoTimestamp | None
    approved_by: str | None
    approved_at: IsoTimestamp | None
    rejected_by: str | None
    rejected_at: IsoTimestamp | None
    rejection_reason: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    user_name: str | None
    approver_name: str | None


# The agent meta record of an agent task: the agents area owns it; a task's detail shows it too.
class AgentMetaRead(Read):
    id: str
    task_id: str
    stage: str
    effort_estimate: str | None
    scope_document: str | None
    agent_confidence_note: str | None
    retry_count: int
    branch_name: str | None
    pr_url: str | None
    preview_url: str | None
    browser_test_status: str | None
    browser_test_video_url: str | None
    ci_status: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


def _camel(key: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))


_envelope_names: dict[str, tuple] = {}


def _envelope(kind: str, key: str, model: type[BaseModel], fields: dict) -> type[BaseModel]:
    base = model.__name__.removesuffix("Read")
    name = f"{_camel(key)}Response" if kind == "one" else f"{_camel(key)}{'Page' if kind == 'paged' else 'List'}"
    if _envelope_names.setdefault(name, (kind, key, model)) != (kind, key, model):
        name = f"{base}{name}"
    _envelope_names.setdefault(name, (kind, key, model))
    return create_model(name, __base__=Read, **fields)


@cache
def one(key: str, model: type[BaseModel]) -> type[BaseModel]:
    """`{key: model}`: the body of a route answering one record."""
    return _envelope("one", key, model, {key: (model, ...)})


@cache
def many(key: str, model: type[BaseModel]) -> type[BaseModel]:
    """`{key: [model]}`: the body of a route answering a bounded list."""
    return _envelope("many", key, model, {key: (list[model], ...)})


@cache
def paged(key: str, model: type[BaseModel]) -> type[BaseModel]:
    """`{key: [model], total, limit, offset}`: the body of a paged list."""
    return _envelope("paged", key, model, {key: (list[model], ...), "total": (int, ...), "limit": (int, ...),
                                           "offset": (int, ...)})


class PageQuery(Input):
    """`limit` (1 to 500, default 500: decisions.md section 4) and `offset` of a paged list; a list's query
    model derives from it and its route answers `paged(key, Read)`."""

    limit: int = Field(LIST_LIMIT, ge=1, le=LIST_LIMIT)
    offset: int = Field(0, ge=0, le=100_000_000)
