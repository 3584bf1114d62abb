"""Every area's input models (its schemas.py and the schemas_<sub>.py it is split into) use the core's field
types (core/schemas.py): no bare bool (use Flag or QueryFlag), date (CalendarDate), datetime (Timestamp), and
no float for money (Money)."""
import importlib
import pkgutil
import re
import types
import typing
from datetime import date, datetime

import pytest
from pydantic import BaseModel

import chalicelib.areas
from chalicelib.core import schemas as core

MONEY = re.compile(r"(amount|price|cost|salary|rate|budget|value)s?$")
CORE_VALIDATORS = {core._flag, core._query_flag, core._calendar_date, core._utc_timestamp, core._money}


def _unwrap(annotation):
    """The annotation's non-None members (Optional / unions flattened)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = []
        for arg in typing.get_args(annotation):
            members.extend(_unwrap(arg))
        return members
    return [] if annotation is type(None) else [annotation]


def problems_of(model: type[BaseModel]) -> list[str]:
    problems = []
    for name, field in model.model_fields.items():
        validators = {getattr(getattr(item, "func", None), "__func__", getattr(item, "func", None))
                      for item in field.metadata}
        core_typed = bool(validators & CORE_VALIDATORS)
        for member in _unwrap(field.annotation):
            if typing.get_origin(member) is typing.Annotated:
                args = typing.get_args(member)
                member = args[0]
                core_typed = core_typed or any(getattr(item, "func", None) in CORE_VALIDATORS for item in args[1:])
            if member is bool and not core_typed:
                problems.append(f"{model.__name__}.{name}: bare bool (use Flag or QueryFlag)")
            elif member is datetime and not core_typed:
                problems.append(f"{model.__name__}.{name}: bare datetime (use Timestamp)")
            elif member is date and not core_typed:
                problems.append(f"{model.__name__}.{name}: bare date (use CalendarDate)")
            elif member is float and MONEY.search(name):
                problems.append(f"{model.__name__}.{name}: float money (use Money)")
    return problems


def schema_modules(area: str) -> list[str]:
    """The area's `schemas.py` and the `schemas_<sub>.py` it is split into (docs/area-contract.md)."""
    package = importlib.import_module(f"chalicelib.areas.{area}")
    return [f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)
            if info.name == "schemas" or info.name.startswith("schemas_")]


def input_models(area: str) -> list[type[BaseModel]]:
    models = []
    for name in schema_modules(area):
        module = importlib.import_module(name)
        models += [value for value in vars(module).values()
                   if isinstance(value, type) and issubclass(value, core.Input) and value.__module__ == module.__name__]
    return models


AREAS = sorted(info.name for info in pkgutil.iter_modules(chalicelib.areas.__path__)
               if importlib.util.find_spec(f"chalicelib.areas.{info.name}.schemas") is not None)


@pytest.mark.parametrize("area", AREAS)
def test_inputs_use_core_types(area):
    problems = [problem for model in input_models(area) for problem in problems_of(model)]
    assert problems == []


def test_the_check_reads_the_split_schemas_modules():
    """A `schemas_<sub>.py` module's input models are checked as those of `schemas.py` are."""
    assert "chalicelib.areas.portal.schemas_results" in schema_modules("portal")
    assert {"AdConnectionCreate", "QbrCreate", "PortalNoteCreate"} <= {model.__name__ for model in input_models("portal")}


def test_the_check_catches_bare_types():
    class Bad(core.Input):
        done: bool = False
        maybe: bool | None = None
        day: date | None = None
        at: datetime | None = None
        total_amount: float | None = None

    class Good(core.Input):
        done: core.Flag = False
        maybe: core.QueryFlag = None
        day: core.CalendarDate = None
        at: core.Timestamp = None
        total_amount: core.Money | None = None
        hours: float | None = None

    assert len(problems_of(Bad)) == 5
    assert problems_of(Good) == []


@pytest.mark.parametrize("value, ok", [(True, True), (0, True), (1, True), ("true", False), ("yes", False), (2, False)])
def test_flag(value, ok):
    class M(core.Input):
        flag: core.Flag

    if ok:
        assert M.model_validate({"flag": value}).flag is bool(value)
    else:
        with pytest.raises(ValueError):
            M.model_validate({"flag": value})


@pytest.mark.parametrize("value, expected", [("true", True), ("FALSE", False), ("1", True), ("0", False),
                                             ("yes", None), ("on", None)])
def test_query_flag(value, expected):
    """true/false/1/0, any case, read as the boolean they name; anything else is refused."""
    class M(core.Input):
        flag: core.QueryFlag = None

    if expected is not None:
        assert M.model_validate({"flag": value}).flag is expected
    else:
        with pytest.raises(ValueError):
            M.model_validate({"flag": value})


def test_money_is_exact_and_refuses_booleans():
    from decimal import Decimal

    class M(core.Input):
        amount: core.Money

    assert M.model_validate({"amount": 0.1}).amount == Decimal("0.1")
    assert M.model_validate({"amount": "12.50"}).amount == Decimal("12.50")
    for bad in (True, "abc", 1.234, float("nan")):
        with pytest.raises(ValueError):
            M.model_validate({"amount": bad})


@pytest.mark.parametrize("value, ok", [(999_999_999_999.99, True), (-999_999_999_999.99, True), (10**12, False),
                                       (-(10**12), False), ("1e12", False), (1e13, False)])
def test_money_holds_twelve_digits_before_the_point(value, ok):
    """14 digits with 2 decimals, as documented and as the Numeric(14, 2) columns hold: pydantic's max_digits
    counts a normalised 1E+12 as one digit, so without the bound 10**12 passed and the database refused it
    (a 400 naming no field)."""
    class M(core.Input):
        amount: core.Money

    if ok:
        assert M.model_validate({"amount": value}).amount is not None
    else:
        with pytest.raises(ValueError):
            M.model_validate({"amount": value})


@pytest.mark.parametrize("value, ok", [("2026-11-27T10:00:00Z", True), ("2026-11-27T10:00:00+02:00", True),
                                       ("2026-11-27T10:00:00", True), (None, True), (0, False), (1700000000, False),
                                       (1.5, False), (True, False), ("1700000000", False), ("-5", False),
                                       ("soon", False), ("2026-11-27", False), (" 2026-11-27 ", False)])
def test_timestamp_is_an_iso_string(value, ok):
    """A number (or a string of digits) is not read as Unix seconds: a wrong type is a 400."""
    class M(core.Input):
        at: core.Timestamp = None

    if ok:
        at = M.model_validate({"at": value}).at
        assert at is None or at.tzinfo is not None
    else:
        with pytest.raises(ValueError):
            M.model_validate({"at": value})


@pytest.mark.parametrize("value, ok", [(12, True), (12.5, True), ("12", False), ("12.50", False), (True, False)])
def test_json_number_refuses_strings_and_booleans(value, ok):
    from decimal import Decimal
    from typing import Annotated

    class M(core.Input):
        amount: Annotated[core.Money, core.JsonNumber]

    if ok:
        assert M.model_validate({"amount": value}).amount == Decimal(str(value))
    else:
        with pytest.raises(ValueError):
            M.model_validate({"amount": value})


def _strict(field, annotated_args=()) -> bool:
    from pydantic import Strict
    from pydantic.fields import FieldInfo

    items = [*field.metadata, *annotated_args]
    items += [inner for item in items if isinstance(item, FieldInfo) for inner in item.metadata]
    return any(isinstance(item, Strict) and item.strict for item in items)


def _query_models() -> set:
    from app import app as chalice_app

    return {spec.query for methods in chalice_app.routes.values() for entry in methods.values()
            if (spec := getattr(entry.view_function, "__wms_endpoint__", None)) is not None and spec.query}


def number_problems(model) -> list[str]:
    """A body's int and float fields take JSON numbers only (strict): a numeric string or a boolean is a wrong
    type (decisions.md section 4: 400). Queries arrive as text, so their numbers are parsed."""
    problems = []
    for name, field in model.model_fields.items():
        for member in _unwrap(field.annotation):
            args = ()
            if typing.get_origin(member) is typing.Annotated:
                member, *args = typing.get_args(member)
            if member in (int, float) and not _strict(field, args):
                problems.append(f"{model.__name__}.{name}: {member.__name__} that is not strict")
    return problems


def test_body_numbers_are_json_numbers():
    queries = {core.model_of(model) for model in _query_models()}
    problems = [problem for area in AREAS for model in input_models(area)
                if core.model_of(model) not in queries for problem in number_problems(core.model_of(model))]
    assert problems == []


def test_the_number_check_finds_a_lax_field():
    from pydantic import Field, StrictInt

    class Lax(core.Input):
        count: int = 0
        share: float | None = None

    class Strict(core.Input):
        count: StrictInt = 0
        share: float | None = Field(default=None, strict=True)
        when: typing.Optional[typing.Annotated[int, Field(ge=0, strict=True)]] = None

    assert len(number_problems(core.model_of(Lax))) == 2
    assert number_problems(core.model_of(Strict)) == []
