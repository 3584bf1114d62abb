"""Request and read models of the client portal's projects, dashboard, budgets, invoices, contracts, pages, notes,
team, requests and onboarding, and the field types the area's other models share.

By sub-resource: client goals and the questionnaire in schemas_goals.py, QBRs in schemas_qbrs.py, the portal
user's notifications in schemas_notifications.py, connected ad platforms and results in schemas_results.py.
They import the shared types (`Period`, `Short`) from here; this module imports none of them."""

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import Flag01, Id, Input, IsoDate, IsoTimestamp, Read, Text, choice

Period = choice("week", "month", "quarter", "year")
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]


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
    NOT_NULL = frozenset({"title"})

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    description: Optional[Text(20000)] = None
    priority: Optional[Short] = None
    projectId: Optional[Id] = None  # document 3 marks only the title required: without it, a task of the company
    portalUserId: Optional[Short] = None


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
    goals_limit: int | None = Field(None, description="present only when the goals were too long to answer "
                                                      "together (6 MB): how many `goals` carries, the first ones "
                                                      "(then `decisions` is empty)")
    decisions_limit: int | None = Field(None, description="present only when the decisions were cut to fit beside "
                                                          "the goals: how many `decisions` carries, the first ones; "
                                                          "the rest from GET .../decisions?offset=decisions_limit")


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
    items_limit: int | None = Field(None, description="present only when the items were too long to answer together "
                                                      "(6 MB): how many `items` carries, the first ones in position "
                                                      "order (the rest are not in the portal's reads)")


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


class FinancialCurrencyRead(Read):
    """The totals of the issued invoices in one currency."""
    currency: str
    total_invoiced: float
    total_outstanding: float
    total_overdue: float


class FinancialRead(Read):
    total_invoiced: float = Field(description="in `currency`: the invoices in that currency only")
    total_outstanding: float = Field(description="in `currency`: the invoices in that currency only")
    total_overdue: float = Field(description="in `currency`: the invoices in that currency only")
    currency: str | None = Field(description="the main currency of the issued invoices: the one with the most "
                                             "invoiced (ties by code); null without an invoice (the totals are 0)")
    by_currency: list[FinancialCurrencyRead] = Field(description="one entry per currency of the issued invoices, "
                                                                 "`currency` first, then by code; never added "
                                                                 "together")


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
