"""Request and read models of the performance area (unknown fields are ignored)."""

from typing import Annotated, Optional

from pydantic import Field, StrictInt

from chalicelib.core.schemas import CalendarDate, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Name, Read, Text, choice

from .models import CYCLE_STATUSES, CYCLE_TYPES, GOAL_STATUSES, RATINGS, REVIEW_STATUSES

CycleType = choice(*CYCLE_TYPES)
CycleStatus = choice(*CYCLE_STATUSES)
ReviewStatus = choice(*REVIEW_STATUSES)
GoalStatus = choice(*GOAL_STATUSES)
Rating = choice(*RATINGS)
SortOrder = Annotated[StrictInt, Field(ge=0, le=1_000_000)]
Label = Annotated[str, Field(min_length=1, max_length=500)]
LongText = Text(20000)
Comment = Text(5000)


# --- cycles -----------------------------------------------------------------------------------------

class CycleCreate(Input):
    NOT_NULL = frozenset({"type", "name", "period_start", "period_end"})

    type: CycleType
    name: Name
    period_start: CalendarDate
    period_end: CalendarDate
    due_date: CalendarDate = None


class CycleUpdate(Input):
    NOT_NULL = frozenset({"name", "period_start", "period_end", "status", "type"})

    type: Optional[CycleType] = None
    name: Optional[Name] = None
    period_start: CalendarDate = None
    period_end: CalendarDate = None
    due_date: CalendarDate = None
    status: Optional[CycleStatus] = None


class CycleRead(Read):
    id: str
    type: CycleType
    name: str
    period_start: IsoDate
    period_end: IsoDate
    due_date: IsoDate | None
    status: CycleStatus
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class CycleProgressRead(Read):
    total: int
    completed: int
    draft: int
    self_assessment: int
    in_review: int
    ready_for_review: int


class CycleDetailRead(CycleRead):
    progress: CycleProgressRead


# --- templates --------------------------------------------------------------------------------------

class ReviewTemplateItemInput(Input):
    NOT_NULL = frozenset({"area", "label", "is_mandatory"})

    area: Name
    label: Label
    is_mandatory: Flag = False
    sort_order: Optional[SortOrder] = None


class ReviewTemplateItemUpdate(ReviewTemplateItemInput):
    id: Optional[Id] = None  # one of the template's items: kept (its id, so its ratings and aggregation), updated


class ReviewTemplateCreate(Input):
    NOT_NULL = frozenset({"name", "items"})

    name: Name
    description: Optional[LongText] = None
    items: list[ReviewTemplateItemInput] = Field(default_factory=list, max_length=100)


class ReviewTemplateUpdate(Input):
    NOT_NULL = frozenset({"name", "items"})

    name: Optional[Name] = None
    description: Optional[LongText] = None
    items: Optional[list[ReviewTemplateItemUpdate]] = Field(None, max_length=100)


class ReviewTemplateAssign(Input):
    NOT_NULL = frozenset({"user_ids"})

    user_ids: list[Id] = Field(..., min_length=1, max_length=500)


class ReviewTemplateItemRead(Read):
    id: str
    area: str
    label: str
    is_mandatory: Flag01
    sort_order: int


class ReviewTemplateRead(Read):
    id: str
    name: str
    description: str | None
    items: list[ReviewTemplateItemRead]
    user_ids: list[str]
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


# --- reviews ----------------------------------------------------------------------------------------

class ReviewListQuery(Input):
    cycle_id: Optional[Id] = None
    status: Optional[ReviewStatus] = None


class ReviewCreate(Input):
    NOT_NULL = frozenset({"cycle_id", "user_id"})

    cycle_id: Id
    user_id: Id
    reviewer_id: Optional[Id] = None


class KpiRatingInput(Input):
    NOT_NULL = frozenset({"id"})

    id: Id
    rating: Optional[Rating] = None
    notes: Optional[LongText] = None


class ReviewGoalInput(Input):
    NOT_NULL = frozenset({"goal"})

    goal: Annotated[str, Field(min_length=1, max_length=5000)]
    success_measures: Optional[LongText] = None
    support_needed: Optional[LongText] = None
    sort_order: Optional[SortOrder] = None


class ReviewUpdate(Input):
    NOT_NULL = frozenset({"status", "kpi_ratings", "goals"})

    status: Optional[ReviewStatus] = None
    strengths: Optional[LongText] = None
    growth_areas: Optional[LongText] = None
    discussion_topics: Optional[LongText] = None
    reviewer_notes: Optional[LongText] = None
    action_items: Optional[LongText] = None
    kpi_ratings: Optional[list[KpiRatingInput]] = Field(None, max_length=200)
    goals: Optional[list[ReviewGoalInput]] = Field(None, max_length=100)


class GoalOutcome(Input):
    NOT_NULL = frozenset({"goal_id", "status"})

    goal_id: Id
    status: GoalStatus


class PreviousGoalsUpdate(Input):
    NOT_NULL = frozenset({"outcomes"})

    outcomes: list[GoalOutcome] = Field(..., max_length=200)


class ReviewRead(Read):
    id: str
    cycle_id: str
    user_id: str
    reviewer_id: str | None
    status: ReviewStatus
    user_name: str | None
    reviewer_name: str | None
    cycle_name: str
    cycle_type: CycleType
    kpi_pass_count: int | None
    kpi_total_count: int | None
    kpi_passed: Flag01 | None
    strengths: str | None
    growth_areas: str | None
    discussion_topics: str | None
    reviewer_notes: str | None
    action_items: str | None
    completed_at: IsoTimestamp | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class KpiRatingRead(Read):
    id: str
    area: str
    label: str
    rating: Rating | None
    notes: str | None
    sort_order: int
    template_item_id: str | None
    is_mandatory: Flag01


class ReviewGoalRead(Read):
    id: str
    review_id: str
    goal: str
    success_measures: str | None
    support_needed: str | None
    status: GoalStatus | None
    sort_order: int


class PreviousReviewBrief(Read):
    id: str
    cycle_name: str
    reviewer_notes: str | None
    action_items: str | None


class PreviousKpiRead(Read):
    template_item_id: str | None
    rating: Rating | None


class PreviousReviewGoalRead(Read):
    id: str
    goal: str
    status: GoalStatus | None


class PreviousReviewRead(Read):
    review: PreviousReviewBrief
    kpi_ratings: list[PreviousKpiRead]
    goals: list[PreviousReviewGoalRead]


class KpiAggregateRead(Read):
    ratings: dict[str, int]
    most_common: Rating | None


class ReviewDetail(Read):
    review: ReviewRead
    kpi_ratings: list[KpiRatingRead]
    goals: list[ReviewGoalRead]
    previous_reviews: list[PreviousReviewRead]
    kpi_aggregation: dict[str, KpiAggregateRead] | None


class HistoryRead(Read):
    review_id: str
    cycle_id: str
    cycle_name: str
    cycle_type: CycleType
    period_start: IsoDate
    period_end: IsoDate
    completed_at: IsoTimestamp | None
    kpi_pass_count: int | None
    kpi_total_count: int | None
    kpi_passed: Flag01
    goal_count: int
    goals_completed: int
    goals_not_completed: int


class MyGoalsRead(Read):
    goals: list[ReviewGoalRead]
    cycle_name: str


# --- feedback ---------------------------------------------------------------------------------------

class FeedbackRequestCreate(Input):
    NOT_NULL = frozenset({"cycle_id", "subject_id", "reviewer_id"})

    cycle_id: Id
    subject_id: Id
    reviewer_id: Id
    due_date: CalendarDate = None


class FeedbackBulkCreate(Input):
    NOT_NULL = frozenset({"cycle_id", "subject_id"})

    cycle_id: Id
    subject_id: Id
    due_date: CalendarDate = None


class FeedbackResponseCreate(Input):
    NOT_NULL = frozenset({"request_id"})

    request_id: Id
    organisation_rating: Optional[Rating] = None
    performance_rating: Optional[Rating] = None
    communication_rating: Optional[Rating] = None
    development_rating: Optional[Rating] = None
    automation_rating: Optional[Rating] = None
    organisation_comment: Optional[Comment] = None
    performance_comment: Optional[Comment] = None
    automation_comment: Optional[Comment] = None
    overall_comment: Optional[Comment] = None


class FeedbackSummaryQuery(Input):
    cycle_id: Optional[Id] = None


class FeedbackRequestRead(Read):
    id: str
    cycle_id: str
    cycle_name: str
    subject_id: str
    subject_name: str | None
    reviewer_id: str
    requested_by: str | None
    due_date: IsoDate | None
    status: choice("pending", "submitted")
    submitted_at: IsoTimestamp | None
    created_at: IsoTimestamp


class FeedbackResponseRead(Read):
    """A submitted response as stored: ratings and comments, no reviewer and no time (the row holds neither)."""
    id: str
    request_id: str
    organisation_rating: Rating | None
    performance_rating: Rating | None
    communication_rating: Rating | None
    development_rating: Rating | None
    automation_rating: Rating | None
    organisation_comment: str | None
    performance_comment: str | None
    automation_comment: str | None
    overall_comment: str | None


class BulkFeedbackRead(Read):
    created: int
    total_peers: int


class FeedbackAreaSummary(Read):
    ratings: dict[str, int]
    comments: list[str]


class FeedbackSummaryRead(Read):
    """Insufficient: `{sufficient: false, response_count, minimum_required}`; sufficient: also `areas` and
    `overall_comments`. Nothing in it names or orders a reviewer."""
    sufficient: bool
    response_count: int
    minimum_required: int
    areas: dict[str, FeedbackAreaSummary] | None = None
    overall_comments: list[str] | None = None


class AlertsRead(Read):
    pending_reviews: int
    self_assessments: int
    pending_feedback: int
    open_cycles: int
