"""Request models of budgets (unknown fields are ignored; an unknown type or status is a 400)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal, Optional

from pydantic import Field, StringConstraints, field_validator

from chalicelib.core.schemas import CalendarDate, Id, Input, Name, Timestamp

BudgetType = Literal["sprints", "retainer", "time_and_materials", "fixed_price"]
BudgetStatus = Literal["draft", "pending_approval", "approved", "active", "completed", "cancelled"]
ResourceType = Literal["project", "deal"]
Currency = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z]{3}$")]
Amount = Annotated[Decimal, Field(ge=0, max_digits=14, decimal_places=2, allow_inf_nan=False)]
Quantity = Annotated[Decimal, Field(ge=0, max_digits=12, decimal_places=2, allow_inf_nan=False)]
UnitPrice = Annotated[Decimal, Field(max_digits=14, decimal_places=2, allow_inf_nan=False)]
Text = Annotated[str, StringConstraints(max_length=20000)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]


def _no_bool(value):
    if isinstance(value, bool):
        raise ValueError("must be a number")
    return value


class BudgetCreate(Input):
    NOT_NULL = frozenset({"name", "resource_type", "resource_id", "currency", "status"})

    name: Name
    resource_type: ResourceType
    resource_id: Id
    po_number: Optional[Short] = None
    currency: Currency = "AUD"
    status: BudgetStatus = "draft"
    total_amount: Optional[Amount] = None
    company_id: Optional[Id] = None
    notes: Optional[Text] = None

    _numbers = field_validator("total_amount", mode="before")(_no_bool)


class BudgetUpdate(Input):
    NOT_NULL = frozenset({"name", "resource_type", "resource_id", "currency", "status", "created_at"})

    name: Optional[Name] = None
    po_number: Optional[Short] = None
    currency: Optional[Currency] = None
    status: Optional[BudgetStatus] = None
    total_amount: Optional[Amount] = None
    company_id: Optional[Id] = None
    owner_id: Optional[Id] = None
    budget_type: Optional[BudgetType] = None
    forecast_date: CalendarDate = None
    created_at: Timestamp = None
    resource_type: Optional[ResourceType] = None
    resource_id: Optional[Id] = None
    notes: Optional[Text] = None

    _numbers = field_validator("total_amount", mode="before")(_no_bool)


class BudgetQuery(Input):
    resource_type: Optional[ResourceType] = None
    resource_id: Optional[Id] = None
    company_id: Optional[Id] = None
    status: Optional[BudgetStatus] = None


class LineItemCreate(Input):
    NOT_NULL = frozenset({"description", "quantity", "unit_price", "position"})

    description: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    quantity: Quantity = Decimal("1")
    unit_price: UnitPrice = Decimal("0")
    service_type_id: Optional[Id] = None
    task_id: Optional[Id] = None
    position: Annotated[int, Field(ge=0, le=1_000_000, strict=True)] = 0

    _numbers = field_validator("quantity", "unit_price", mode="before")(_no_bool)


class LineItemUpdate(LineItemCreate):
    description: Optional[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]] = None
    quantity: Optional[Quantity] = None
    unit_price: Optional[UnitPrice] = None
    position: Optional[Annotated[int, Field(ge=0, le=1_000_000, strict=True)]] = None


class LineItemReorder(Input):
    item_ids: Annotated[list[Id], Field(min_length=1, max_length=500)]
