"""Request and read models of client goals (the staff CRUD, /api/clients/:companyId/goals) and of the portal
questionnaire, whose goals are client goals."""

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import Flag01, Input, IsoTimestamp, Money, Read, Text

from .schemas import Period, Short

Unit = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]  # client_goals.unit is String(50)
Label = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Percent = Annotated[Money, Field(ge=0, le=100)]


# ---------------------------------------------------------------- inputs

class GoalInput(Input):
    NOT_NULL = frozenset({"metric"})

    metric: Label = Field(min_length=1)
    target: Optional[Money] = None
    unit: Optional[Unit] = None
    period: Optional[Period] = None
    metric_key: Optional[Short] = None
    metric_label: Optional[Label] = None


class QuestionnaireSubmit(Input):
    financial_year_start: Optional[Short] = None
    financial_year_end: Optional[Short] = None
    key_trading_periods: Optional[Text(5000)] = None
    channel_online_pct: Optional[Percent] = None
    channel_instore_pct: Optional[Percent] = None
    channel_wholesale_pct: Optional[Percent] = None
    celebration_vision: Optional[Text(5000)] = None
    growth_priorities_text: Optional[Text(5000)] = None
    company_direction_text: Optional[Text(5000)] = None
    goals: Optional[list[GoalInput]] = Field(None, max_length=20)
    portalUserId: Optional[Short] = None


class ClientGoalCreate(GoalInput):
    pass


class ClientGoalUpdate(Input):
    NOT_NULL = frozenset({"metric"})

    metric: Optional[Label] = Field(None, min_length=1)
    target: Optional[Money] = None
    unit: Optional[Unit] = None
    period: Optional[Period] = None
    metric_key: Optional[Short] = None
    metric_label: Optional[Label] = None


# ---------------------------------------------------------------- read models

class ClientGoalRead(Read):
    id: str
    company_id: str
    metric: str
    metric_key: str | None
    metric_label: str | None
    target: float | None
    unit: str | None
    period: str | None
    source: str
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class QuestionnaireRead(Read):
    company_id: str
    financial_year_start: str | None
    financial_year_end: str | None
    key_trading_periods: str | None
    channel_online_pct: float | None
    channel_instore_pct: float | None
    channel_wholesale_pct: float | None
    celebration_vision: str | None
    growth_priorities_text: str | None
    company_direction_text: str | None
    completed_by: str | None
    completed_at: IsoTimestamp | None
    updated_at: IsoTimestamp | None
    completed: Flag01
    goals: list[ClientGoalRead]
