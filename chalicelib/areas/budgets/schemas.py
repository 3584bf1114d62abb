"""Request and read models of budgets (unknown fields are ignored; an unknown type or status is a 400)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import (CalendarDate, Id, Input, IsoDate, IsoTimestamp, Money, Name, PageQuery,
                                     Read, Text, TimeEntryRead, Timestamp, choice)

BudgetType = choice("sprints", "retainer", "time_and_materials", "fixed_price")
BudgetStatus = choice("draft", "pending_approval", "approved", "active", "completed", "cancelled")
ResourceType = choice("project", "deal")
Currency = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z]{3}$")]
Amount = Annotated[Money, Field(ge=0)]
# Exact decimals like money (two places, never a float or a boolean), at most 10 digits before the point (the
# column is Numeric(12, 2); core Money holds 12).
Quantity = Annotated[Money, Field(ge=0, max_digits=12, lt=Decimal("1e10"))]
UnitPrice = Money
Notes = Text(20000)
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]


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
    notes: Optional[Notes] = None


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
    notes: Optional[Notes] = None


class BudgetListQuery(PageQuery):
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


class LineItemUpdate(LineItemCreate):
    description: Optional[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]] = None
    quantity: Optional[Quantity] = None
    unit_price: Optional[UnitPrice] = None
    position: Optional[Annotated[int, Field(ge=0, le=1_000_000, strict=True)]] = None


class LineItemReorder(Input):
    item_ids: Annotated[list[Id], Field(min_length=1, max_length=500)]


# --- read models ----------------------------------------------------------------------------------

class BudgetRead(Read):
    id: str
    name: str
    resource_type: str
    resource_id: str
    po_number: str | None
    currency: str
    status: str
    total_amount: float | None
    company_id: str | None
    notes: str | None
    owner_id: str | None
    created_by: str | None
    budget_type: str | None
    forecast_date: IsoDate | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    company_name: str | None
    owner_name: str | None
    line_item_count: int
    spent_amount: float
    logged_hours: float


class LineItemRead(Read):
    id: str
    budget_id: str
    description: str
    quantity: float
    unit_price: float
    amount: float
    service_type_id: str | None
    task_id: str | None
    position: int
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    service_type_name: str | None
    task_title: str | None
    logged_hours: float
    invoiced_amount: float


class BudgetTimeEntryRead(TimeEntryRead):
    """A time entry logged against the budget (served by the timesheets area), with its task's title."""
    task_title: str | None


class BudgetDetail(Read):
    budget: BudgetRead
    line_items: list[LineItemRead]
    time_entries: list[BudgetTimeEntryRead] = Field(description="the newest 500 at most")
    time_entries_total: int = Field(description="how many time entries the budget has (all of them: "
                                                "GET /api/time-entries?budget_id=)")


class MemberTimeRead(Read):
    id: str
    name: str | None
    picture: str | None
    total_hours: float
    billable_hours: float


class CurrencyTotalsRead(Read):
    """A project's money in one currency: its budgets' total and its invoices' totals and amounts paid."""
    currency: str
    budget_total: float
    invoiced: float
    collected: float


class ProfitabilityRead(Read):
    budget_total: float = Field(description="in `currency`: the budgets in that currency only")
    total_hours: float
    billable_hours: float
    team_size: int
    invoiced: float = Field(description="in `currency`: the invoices in that currency only")
    collected: float = Field(description="in `currency`: the invoices in that currency only")
    time_by_member: list[MemberTimeRead]
    currency: str | None = Field(description="the currency of the project's budgets that are not cancelled; of "
                                             "several, the one with the largest budget total (ties by code); null "
                                             "without such a budget (the figures above are then 0)")
    by_currency: list[CurrencyTotalsRead] = Field(description="one entry per currency of those budgets or of their "
                                                              "invoices, `currency` first; never added together")
