"""Request and read models of the client portal and of the staff QBR and client goal CRUD."""

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import (Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Money, Name, Read, Text,
                                     choice)

Period = choice("week", "month", "quarter", "year")
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]
Unit = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]  # client_goals.unit is String(50)
Label = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Percent = Annotated[Money, Field(ge=0, le=100)]


# ---------------------------------------------------------------- inputs

class PortalProjectListQuery(Input):
    status: Optional[Short] = None


class PortalNoteCreate(Input):
    NOT_NULL = frozenset({"resourceType", "resourceId", "content"})

    resourceType: choice("project", "invoice")
    resourceId: Id
    content: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20000)]
    parentId: Optional[Id] = None
    portalUserId: Optional[Short] = None


class PortalRequestCreate(Input):
    NOT_NULL = frozenset({"title", "projectId"})

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    description: Optional[Text(20000)] = None
    priority: Optional[Short] = None
    projectId: Id
    portalUserId: Optional[Short] = None


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


class PortalNotificationListQuery(Input):
    filter: choice("all", "unread", "archived") = "all"
    limit: int = Field(50, ge=1, le=100)
    offset: int = Field(0, ge=0, le=100_000_000)


class PortalPreferenceEntry(Input):
    notification_type: Short
    channel_in_app: Flag = True
    channel_email: Flag = False


class PortalPreferencesUpdate(Input):
    preferences: list[PortalPreferenceEntry] = Field(max_length=50)


class QbrSectionInput(Input):
    section_key: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    title: Name
    content: Optional[Text(50000)] = None
    portal_visible: Flag = True


class QbrCreate(Input):
    NOT_NULL = frozenset({"title", "quarter", "sections"})

    title: Name
    quarter: Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^\d{4}-Q[1-4]$")]
    summary: Optional[Text(20000)] = None
    sections: Optional[list[QbrSectionInput]] = Field(None, max_length=50)


class QbrUpdate(Input):
    NOT_NULL = frozenset({"title", "quarter", "sections"})

    title: Optional[Name] = None
    quarter: Optional[Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^\d{4}-Q[1-4]$")]] = None
    summary: Optional[Text(20000)] = None
    sections: Optional[list[QbrSectionInput]] = Field(None, max_length=50)


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

class TaskCounts(Read):
    total: int
    done: int
    open: int


class PortalProjectRead(Read):
    id: str
    name: str
    description: str | None
    company_id: str | None
    status: str
    start_date: IsoDate | None
    end_date: IsoDate | None
    type_label: str | None
    delivery_manager_name: str | None
    owner_name: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    task_counts: TaskCounts


class ProjectsBody(Read):
    projects: list[PortalProjectRead]
    taskCounts: TaskCounts


class PortalGoalRead(Read):
    id: str
    title: str
    description: str | None
    status: str | None
    due_date: IsoDate | None
    position: int


class PortalMemberRead(Read):
    user_id: str
    name: str
    picture: str | None
    job_title: str | None
    role: str


class PortalAiSummaryRead(Read):
    summary_text: str
    recommendations: list
    generated_at: IsoTimestamp


class PortalDecisionRead(Read):
    id: str
    title: str
    decision: str
    rationale: str | None
    decided_at: IsoDate | None
    status: str
    decided_by_name: str | None
    created_at: IsoTimestamp


class ProjectDetailBody(Read):
    project: PortalProjectRead
    goals: list[PortalGoalRead]
    members: list[PortalMemberRead]
    aiSummary: PortalAiSummaryRead | None
    decisions: list[PortalDecisionRead]


class PortalTaskRead(Read):
    id: str
    title: str
    description: str | None
    parent_task_id: str | None
    due_date: IsoDate | None
    start_date: IsoDate | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    status_label: str | None
    status_value: str | None
    status_color: str | None
    priority_label: str | None
    priority_value: str | None
    type_label: str | None
    assignee_id: str | None
    assignee_name: str | None


class PortalRoadmapRead(Read):
    id: str
    name: str
    description: str | None
    project_id: str | None
    start_date: IsoDate | None
    end_date: IsoDate | None


class PortalRoadmapItemRead(Read):
    id: str
    title: str
    description: str | None
    area: str | None
    start_date: IsoDate | None
    end_date: IsoDate | None
    color: str | None
    position: int


class RoadmapBody(Read):
    roadmap: PortalRoadmapRead | None
    items: list[PortalRoadmapItemRead]


class PortalBudgetRead(Read):
    id: str
    name: str
    resource_type: str
    resource_id: str
    po_number: str | None
    currency: str
    status: str
    total_amount: float | None
    budget_type: str | None
    forecast_date: IsoDate | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class PortalLineItemRead(Read):
    """A line of a budget or an invoice, as the client sees it."""
    id: str
    description: str
    quantity: float
    unit_price: float
    amount: float
    position: int


class BudgetDetailBody(Read):
    budget: PortalBudgetRead
    lineItems: list[PortalLineItemRead]


class PortalInvoiceRead(Read):
    id: str
    invoice_number: str
    status: str
    currency: str
    due_date: IsoDate | None
    issued_date: IsoDate
    company_id: str | None
    subtotal: float
    tax: float
    total: float
    amount_paid: float
    amount_due: float | None
    payment_status: str | None
    is_overdue: Flag01
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class PortalPaymentRead(Read):
    id: str
    amount: float
    date: IsoDate | None
    reference: str | None
    status: str | None


class InvoiceDetailBody(Read):
    invoice: PortalInvoiceRead
    lineItems: list[PortalLineItemRead]
    payments: list[PortalPaymentRead]


class PortalSignerRead(Read):
    name: str | None
    email: str | None
    signed_at: str | None


class PortalContractRead(Read):
    id: str
    title: str
    company_id: str | None
    status: str
    signers: list[PortalSignerRead]
    document_url: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class PortalPageRead(Read):
    id: str
    title: str
    icon: str | None
    parent_id: str | None
    entity_type: str | None
    entity_id: str | None
    cover_image: str | None
    published_at: IsoTimestamp | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class PortalPageDetail(PortalPageRead):
    content: str
    content_rich: str | None


class PortalNoteRead(Read):
    id: str
    resource_type: str
    resource_id: str
    content: str
    parent_id: str | None
    author_name: str | None
    from_client: Flag01
    created_at: IsoTimestamp


class IdBody(Read):
    id: str


class PortalHistoryRead(Read):
    id: str
    entity_type: str
    entity_id: str
    action: str
    actor_name: str | None
    created_at: IsoTimestamp


class TeamMemberRead(Read):
    user_id: str
    name: str
    picture: str | None
    job_title: str | None
    roles: list[str]
    project_ids: list[str]


class LeadRead(TeamMemberRead):
    email: str


class TeamBody(Read):
    team: list[TeamMemberRead]
    leads: list[LeadRead]


class PortalAnnouncementRead(Read):
    id: str
    title: str
    content: str
    category: str
    attachment_url: str | None
    attachment_name: str | None
    created_at: IsoTimestamp


class PortalMilestoneRead(Read):
    id: str
    project_id: str
    project_name: str
    title: str
    status: str | None
    due_date: IsoDate | None


class FinancialRead(Read):
    total_invoiced: float
    total_outstanding: float
    total_overdue: float


class DashboardBody(Read):
    projects: list[PortalProjectRead]
    taskCounts: TaskCounts
    financial: FinancialRead | None
    recentActivity: list[PortalHistoryRead]
    milestones: list[PortalMilestoneRead]
    announcements: list[PortalAnnouncementRead]


class RequestCreated(Read):
    taskId: str
    ok: bool


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


class PortalQbrSectionRead(Read):
    id: str
    section_key: str
    title: str
    content: str
    position: int


class PortalQbrRead(Read):
    id: str
    title: str
    quarter: str
    summary: str | None
    presented_at: IsoTimestamp | None
    sections: list[PortalQbrSectionRead]


class PortalOnboardingMilestoneRead(Read):
    id: str
    title: str
    description: str | None
    is_required: Flag01
    sort_order: int
    completed_at: IsoTimestamp | None


class PortalOnboardingStageRead(Read):
    id: str
    name: str
    stage_type: str
    color: str | None
    sort_order: int
    milestones: list[PortalOnboardingMilestoneRead]


class PortalOnboardingTemplateRead(Read):
    id: str
    name: str


class OnboardingBody(Read):
    template: PortalOnboardingTemplateRead | None
    stages: list[PortalOnboardingStageRead]
    total_milestones: int
    completed_milestones: int
    completion_percentage: int
    current_stage_type: str | None
    started_at: IsoTimestamp | None
    completed_at: IsoTimestamp | None


class QbrSectionRead(PortalQbrSectionRead):
    qbr_id: str
    portal_visible: Flag01


class QbrRead(Read):
    id: str
    company_id: str
    title: str
    quarter: str
    summary: str | None
    status: str
    presented_at: IsoTimestamp | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    sections: list[QbrSectionRead]


class PortalNotificationRead(Read):
    id: str
    type: str
    title: str
    body: str | None
    resource_type: str | None
    resource_id: str | None
    action_url: str | None
    is_read: Flag01
    read_at: IsoTimestamp | None
    archived: Flag01
    archived_at: IsoTimestamp | None
    created_at: IsoTimestamp


class NotificationsBody(Read):
    notifications: list[PortalNotificationRead]
    limit: int
    offset: int


class PortalUnreadCount(Read):
    unread_count: int


class PortalPreferenceRead(Read):
    notification_type: str
    label: str
    description: str
    channel_in_app: Flag01
    channel_email: Flag01
    is_customized: bool


# ---------------------------------------------------------------- connected ad platforms and results

from datetime import date as _date  # noqa: E402

from pydantic import field_validator  # noqa: E402

from chalicelib.core.schemas import CalendarDate  # noqa: E402

AdPlatformKey = choice("google_ads", "meta_ads", "shopify")
CAMPAIGN_SORT_KEYS = ("spend", "impressions", "clicks", "conversions", "conversion_value", "orders", "revenue", "roas",
                      "cpa", "ctr", "cpc", "campaign_name", "platform")


class AdConnectionCreate(Input):
    """`credentials` by platform: google_ads {customer_id, refresh_token, login_customer_id?}; meta_ads
    {ad_account_id, access_token}; shopify {shop_domain, access_token}."""
    NOT_NULL = frozenset({"platform", "credentials", "display_name"})

    platform: AdPlatformKey
    credentials: dict
    display_name: Name


class ResultsQuery(Input):
    period_type: Period = "month"
    period_end: CalendarDate = None

    @field_validator("period_end")
    @classmethod
    def _within_years(cls, value):
        if value is not None and not _date(2000, 1, 1) <= value <= _date(2100, 12, 31):
            raise ValueError("must be between 2000-01-01 and 2100-12-31")
        return value


class CampaignResultsQuery(ResultsQuery):
    platform: Optional[AdPlatformKey] = None
    sort_by: choice(*CAMPAIGN_SORT_KEYS) = "spend"
    sort_dir: choice("asc", "desc") = "desc"


class ResultsQuestion(Input):
    NOT_NULL = frozenset({"question"})

    question: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]


class AdConnectionRead(Read):
    id: str
    company_id: str
    platform: str
    display_name: str
    account_id: str
    account_name: str | None
    currency: str | None
    agency_managed: Flag01
    status: str
    last_synced_at: IsoTimestamp | None
    last_sync_error: str | None
    backfilled_at: IsoTimestamp | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class AdConnectionsBody(Read):
    connections: list[AdConnectionRead]
    dashboard_enabled: Flag01


class SyncStarted(Read):
    message: str


class ResultsPeriod(Read):
    type: str
    start: IsoDate
    end: IsoDate
    prior_start: IsoDate
    prior_end: IsoDate
    days: int


class ResultMetric(Read):
    key: str
    label: str
    unit: str  # currency | count | percent | ratio
    higher_is_better: Flag01
    value: float | None
    prior_value: float | None
    delta_pct: float | None
    target: float | None
    tracking_status: str  # on_track | at_risk | off_track | no_target


class ResultsBody(Read):
    period: ResultsPeriod
    metrics: list[ResultMetric]
    insight: str | None
    connected_platforms: list[str]
    dashboard_enabled: Flag01


class CampaignFigures(Read):
    spend: float
    impressions: int
    clicks: int
    conversions: float
    conversion_value: float
    orders: int
    revenue: float
    ctr: float | None
    cpc: float | None
    cpa: float | None
    roas: float | None


class CampaignResult(CampaignFigures):
    platform: str
    connection_id: str
    campaign_id: str
    campaign_name: str


class CampaignsBody(Read):
    period: ResultsPeriod
    campaigns: list[CampaignResult]
    totals: CampaignFigures


class ResultsAnswer(Read):
    answer: str
