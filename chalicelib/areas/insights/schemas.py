"""Request and read models of the insights area (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, field_validator

from chalicelib.core.schemas import CalendarDate, Input, Read


class InsightsQuery(Input):
    """Every insights endpoint: from_date (default one year before to_date), to_date (default today in
    ORG_TIMEZONE), location (a name, case-insensitive), gender (a value, case-insensitive)."""
    # An empty or blank location or gender is no filter, as the lists' text filters (session 29: `location=` was a
    # 400, and `location=%20` a filter matching nobody that withheld the whole organisation's salary figures).
    from_date: CalendarDate = None
    to_date: CalendarDate = None
    location: Optional[Annotated[str, Field(min_length=1, max_length=200)]] = None
    gender: Optional[Annotated[str, Field(min_length=1, max_length=50)]] = None

    @field_validator("location", "gender", mode="before")
    @classmethod
    def _blank_is_no_filter(cls, value):
        if isinstance(value, str):
            return value.strip() or None
        return value


class HeadcountSummary(Read):
    total: int
    growth: float | None
    starters: int
    leavers: int


class RetentionSummary(Read):
    turnover_rate: float
    avg_tenure_months: float | None


class DiversitySummary(Read):
    gender: dict[str, int]
    avg_age: float | None


class CompensationSummary(Read):
    median_salary: float | None
    min_salary: float | None
    max_salary: float | None


class StructureSummary(Read):
    avg_span: float | None
    largest_team: int | None
    smallest_team: int | None
    emp_to_mgr_ratio: str


class NameCount(Read):
    name: str
    count: int


class LocationSummary(Read):
    breakdown: list[NameCount]


class OverviewRead(Read):
    headcount: HeadcountSummary
    retention: RetentionSummary
    diversity: DiversitySummary
    compensation: CompensationSummary
    structure: StructureSummary
    location: LocationSummary


class HeadcountPoint(Read):
    label: str
    headcount: int
    starters: int
    leavers: int


class HeadcountSeriesRead(Read):
    series: list[HeadcountPoint]


class BucketCount(Read):
    bucket: str
    count: int


class TurnoverPoint(Read):
    label: str
    turnover_rate: float
    leavers: int
    headcount: int


class RetentionRead(Read):
    tenure_distribution: list[BucketCount]
    turnover_series: list[TurnoverPoint]


class GenderCount(Read):
    gender: str
    count: int


class DiversityRead(Read):
    gender: list[GenderCount]
    manager_gender: list[GenderCount]
    age_distribution: list[BucketCount]


class BandCount(Read):
    band: str
    count: int


class BasisCount(Read):
    basis: str
    count: int


class CompensationRead(Read):
    median_salary: float | None
    min_salary: float | None
    max_salary: float | None
    salary_bands: list[BandCount]
    employment_basis: list[BasisCount]


class TeamSize(Read):
    squad_name: str
    size: int


class ManagerReports(Read):
    manager_name: str
    reports: int


class StructureRead(Read):
    avg_span: float | None
    span_distribution: list[BucketCount]
    team_sizes: list[TeamSize]
    managers: list[ManagerReports]


class LocationShare(Read):
    name: str
    count: int
    percentage: float


class LocationRead(Read):
    breakdown: list[LocationShare]
    total: int


class CapacityCell(Read):
    company_id: str
    company_name: str | None
    project_type_id: str
    project_type_label: str | None
    project_count: int
    active_project_count: int


class CapacityHeatmapRead(Read):
    cells: list[CapacityCell]
