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
    JsonNumber    a validator for a number field that takes JSON numbers only: `Annotated[Money, JsonNumber]`
    choice(...)   one of the given strings (an enum in the OpenAPI document)

Responses are read models deriving from `Read`, with `Flag01` for the 0/1 flags of the
conventions, `IsoTimestamp` and `IsoDate` for times and dates; a route declares its whole body with
`endpoint(response=...)`, usually an envelope built by `one("task", TaskRead)`,
`many("tasks", TaskRead)` or `paged("tasks", TaskRead)`, or `OkResponse`.
"""

import re
import sys
import threading
import types
from datetime import date, datetime, timezone
from decimal import Decimal
from functools import cache, reduce
from operator import or_
from typing import Annotated, Any, ClassVar, ForwardRef, Literal, Union, get_args, get_origin

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


def _iso_timestamp_input(value: Any) -> Any:
    """Timestamps are ISO 8601 strings (or null): a JSON number, a boolean or a string of digits, which pydantic
    would read as Unix seconds, is a wrong type (400); so is a bare `YYYY-MM-DD` date, which it would read as that
    day's midnight in UTC (in the organisation's zone another hour, or the day before: session 28)."""
    if value is None or isinstance(value, datetime):
        return value
    if not isinstance(value, str) or value.strip().lstrip("+-").replace(".", "", 1).isdigit():
        raise ValueError("must be an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ)")
    if _ISO_DATE.fullmatch(value.strip()):  # a date picker's day, which pydantic would read as midnight UTC (s28)
        raise ValueError("must be a timestamp (YYYY-MM-DDTHH:MM:SSZ), not a date")
    return value


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
Timestamp = Annotated[datetime | None, BeforeValidator(_iso_timestamp_input), AfterValidator(_utc_timestamp)]
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


class _Deferred(type):
    """The class of request and response models (`Input`, `Read`): a class statement records its name, bases and
    body, and builds nothing; `model_of(cls)` builds the pydantic model on first use, once. A function's cold start
    then skips the pydantic class construction of every model its area declares (issue 11 item 7): a request builds
    the one input model its route validates, and a read model is built only for the OpenAPI document or a
    WMS_CHECK_RESPONSES check (no production request uses one). Anything else asked of the class
    (`model_fields`, `model_validate`, calling it, `isinstance`) is answered by the built model.
    """

    def __new__(mcs, name, bases, namespace, **kwargs):
        cls = super().__new__(mcs, name, bases, {key: value for key, value in namespace.items()
                                                 if key in ("__module__", "__qualname__", "__doc__", "__classcell__")})
        # (a body calling super() has a __classcell__: set to this class now, to the built model when it is built)
        frame = sys._getframe(1)  # a class written inside a function may name its neighbours (as pydantic allows)
        cls._deferred_source = (dict(namespace), kwargs, frame.f_locals if frame.f_code.co_name != "<module>" else {})
        cls._deferred_model = None
        return cls

    def __getattr__(cls, name):
        if name.startswith("_deferred_"):
            raise AttributeError(name)
        return getattr(model_of(cls), name)

    def __call__(cls, *args, **kwargs):
        return model_of(cls)(*args, **kwargs)

    def __instancecheck__(cls, instance):
        return isinstance(instance, model_of(cls))


def _resolved(annotation: Any, globalns: dict, localns: dict) -> Any:
    """An annotation with every deferred model in it (also inside `list[...]`, `X | None`, `Annotated[...]`) replaced
    by its built model; a string annotation (a module with `from __future__ import annotations`) evaluated first."""
    while isinstance(annotation, (str, ForwardRef)):  # "X", or list["X"]'s ForwardRef("X")
        text = annotation if isinstance(annotation, str) else annotation.__forward_arg__
        annotation = eval(text, globalns, localns)  # noqa: S307 - the class's own annotation text
    if isinstance(annotation, _Deferred):
        return model_of(annotation)
    args = get_args(annotation)
    if not args:
        return annotation
    origin = get_origin(annotation)
    if origin is Annotated:
        inner = _resolved(args[0], globalns, localns)
        return annotation if inner is args[0] else Annotated[(inner, *annotation.__metadata__)]
    if origin is Literal:
        return annotation
    new = tuple(_resolved(arg, globalns, localns) for arg in args)
    if all(a is b for a, b in zip(new, args)):
        return annotation
    if origin in (Union, types.UnionType):
        return reduce(or_, new) if origin is types.UnionType else Union[new]
    if isinstance(annotation, types.GenericAlias):
        return types.GenericAlias(origin, new)
    return annotation.copy_with(new)


_building = threading.RLock()  # reentrant: a model builds the models it names first


def model_of(model: Any) -> Any:
    """The pydantic model of an input or read model (built on first use), or `model` itself when it is already one
    (an area's own `BaseModel`) or None."""
    if not isinstance(model, _Deferred):
        return model
    if model._deferred_model is not None:
        return model._deferred_model
    with _building:  # once, also when two threads answer their first request at the same time
        if model._deferred_model is not None:
            return model._deferred_model
        namespace, kwargs, localns = model._deferred_source
        if "_deferred_envelope" in namespace:  # one/many/paged: create_model, as before
            name, fields = namespace["_deferred_envelope"]
            built = create_model(name, __base__=model_of(Read),
                                 **{key: (_resolved(tp, {}, {}), default) for key, (tp, default) in fields.items()})
        else:
            bases = tuple(model_of(base) for base in model.__bases__)
            if bases == (object,):
                bases = (BaseModel,)
            module = sys.modules.get(namespace.get("__module__"))
            globalns = dict(vars(module)) if module is not None else {}
            body = dict(namespace)
            body["__annotations__"] = {key: _resolved(value, globalns, localns)
                                       for key, value in namespace.get("__annotations__", {}).items()}
            built = type(BaseModel)(model.__name__, bases, body, **{**kwargs, "__pydantic_reset_parent_namespace__": False})
        model._deferred_model = built
        return built


def is_built(model: Any) -> bool:
    """Whether an input or read model's pydantic model has been built (tests of the cold start)."""
    return not isinstance(model, _Deferred) or model._deferred_model is not None


class Input(metaclass=_Deferred):
    """A request body or query: unknown fields ignored (decisions.md section 4).

    `NOT_NULL` names the fields that may be left out but never sent as null (an update may clear an
    optional field with null, never a required one). `changes()` answers the fields the caller sent.
    """

    # the class is built on first use (_Deferred), and defer_build: its validator on its first validation
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


def _json_number(value: Any) -> Any:
    if isinstance(value, (str, bool)):
        raise ValueError("must be a number")
    return value


Flag = Annotated[bool, BeforeValidator(_flag)]
QueryFlag = Annotated[bool | None, BeforeValidator(_query_flag),
                      WithJsonSchema({"type": "string", "enum": ["true", "false", "1", "0"]})]
# 14 digits, 2 of them decimals. The bounds state the 12 before the point: pydantic's max_digits counts a normalised
# 1E+12 as one digit. A column with fewer (quantity, Numeric(12, 2)) narrows them in its area's type.
MONEY_LIMIT = Decimal(10) ** 12
Money = Annotated[Decimal, BeforeValidator(_money), Field(max_digits=14, decimal_places=2, allow_inf_nan=False,
                                                          gt=-MONEY_LIMIT, lt=MONEY_LIMIT)]


class _JsonNumber:
    """Added to a number type (`Annotated[Money, JsonNumber]`): the value must be a JSON number, a numeric string
    or a boolean is a wrong type (400). It runs before the type's own validators, and the JSON schema keeps only
    the number form (a Decimal's schema also offers a string)."""

    def __get_pydantic_core_schema__(self, source, handler):
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(_json_number, handler(source))

    def __get_pydantic_json_schema__(self, schema, handler):
        json_schema = handler(schema)
        numbers = [form for form in json_schema.get("anyOf", ()) if form.get("type") in ("number", "integer")]
        if len(numbers) == 1:
            return {**{k: v for k, v in json_schema.items() if k != "anyOf"}, **numbers[0]}
        return json_schema


JsonNumber = _JsonNumber()


def Text(max_length: int):  # noqa: N802 - a type, named like one
    """Free text of at most `max_length` characters, kept as sent."""
    return Annotated[str, StringConstraints(max_length=max_length)]


def comma_values(value: str | None) -> list[str]:
    """The values of a comma-separated filter (`a, b,,c`: a, b, c)."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def CommaList(max_items: int, item_length: int | None = None):  # noqa: N802 - a type, named like one
    """A comma-separated query filter of at most `max_items` values, each at most `item_length` characters: kept as
    `a,b,c` (None when it names none), read with `comma_values`. Each value becomes a bind parameter, and a
    statement past pg8000's 65,535 cannot be sent: more is a 400 naming the filter, never a 500."""
    def check(value: Any) -> Any:
        if value is None or not isinstance(value, str):
            return value
        parts = comma_values(value)
        if len(parts) > max_items or (item_length and any(len(part) > item_length for part in parts)):
            each = f" of at most {item_length} characters" if item_length else ""
            raise ValueError(f"must be at most {max_items} comma-separated values{each}")
        return ",".join(parts) or None
    return Annotated[Union[str, None], BeforeValidator(check)]


_HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")


def _hex_colour(value: Any) -> Any:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _HEX_COLOUR.fullmatch(value):
        raise ValueError("must be a hex colour such as #3b82f6")
    return value.lower()


HexColour = Annotated[Union[str, None], BeforeValidator(_hex_colour)]  # "#rgb", "#rrggbb" or "#rrggbbaa", lower case


def choice(*values: str):
    """One of `values`: a Literal, so the OpenAPI document lists them as an enum."""
    return Literal[values]


# --- read models --------------------------------------------------------------------------------

Flag01 = Annotated[int, Strict(), Field(ge=0, le=1), WithJsonSchema({"type": "integer", "enum": [0, 1]})]
IsoTimestamp = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$"),
                         WithJsonSchema({"type": "string", "format": "date-time"})]
IsoDate = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$"),
                    WithJsonSchema({"type": "string", "format": "date"})]


class Read(metaclass=_Deferred):
    """A response record: every field the service answers, declared (an undeclared one is an error in tests).
    Its pydantic model is built on first use (`model_of`), and its validator only on its first validation."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


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
    updated_by: str | None  # who last changed its values (docs/decisions/timesheets.md, "Editor is not approver")
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
    # a read model like the others: built (create_model over Read) on first use
    return _Deferred(name, (Read,), {"__module__": __name__, "__qualname__": name, "_deferred_envelope": (name, fields)})


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
    """`{key: [model], total, total_exact, limit, offset}`: the body of a paged list (`total_exact` 0: at
    least `total` rows match; counting stopped there, core.query.COUNT_LIMIT)."""
    return _envelope("paged", key, model, {key: (list[model], ...), "total": (int, ...), "total_exact": (Flag01, ...),
                                           "limit": (int, ...), "offset": (int, ...)})


class PageQuery(Input):
    """`limit` (1 to 500, default 500: decisions.md section 4) and `offset` of a paged list; a list's query
    model derives from it and its route answers `paged(key, Read)`."""

    limit: int = Field(LIST_LIMIT, ge=1, le=LIST_LIMIT)
    offset: int = Field(0, ge=0, le=100_000_000)
