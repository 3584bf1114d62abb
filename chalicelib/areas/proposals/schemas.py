"""Request and read models of proposals, their templates, pricing, sharing and the public viewer (unknown
fields are ignored; an unknown status is a 400)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal, Optional

from pydantic import AfterValidator, Field, StringConstraints, field_validator

from chalicelib.core.schemas import (CalendarDate, Email, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Money, Name,
                                     PageQuery, Read, Text, choice, non_blank)

Status = choice("draft", "review", "changes_requested", "approved", "sent", "viewed", "accepted", "declined",
                "expired")
Currency = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z]{3}$")]


def _json_container(value: str | None) -> str | None:
    """JSON text (spec 2) holds a JSON object or array: a non-empty value that starts otherwise (a JSON string of
    markup, a number, true, null, plain text) is a 400 naming the field. Whether it parses, and how deep it nests,
    is checked after (service_templates.check_json); a parsed text that starts with `{` or `[` is an object or an
    array. An empty string stays accepted (nothing to parse, as before)."""
    if value and value.lstrip(" \t\n\r")[:1] not in ("{", "["):
        raise ValueError("must be JSON text holding an object or an array")
    return value


JsonText = Annotated[Text(200_000), AfterValidator(_json_container)]
RichText = Annotated[Text(2_000_000), AfterValidator(_json_container)]
Category = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]
TITLE_MAX = 300  # proposals.title is String(300): the input's cap and a duplicate's (service.duplicate_proposal)
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_MAX)]
# The column is Numeric(12, 2): 10 digits before the point (core Money holds 12).
Quantity = Annotated[Money, Field(ge=0, max_digits=12, lt=Decimal("1e10"))]
UnitPrice = Annotated[Money, Field(ge=-1_000_000_000, le=1_000_000_000)]
Comments = Text(20_000)
VariableName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]


# --- templates ------------------------------------------------------------------------------------

class ProposalTemplateCreate(Input):
    NOT_NULL = frozenset({"name"})

    name: Name
    description: Optional[Text(20_000)] = None
    category: Optional[Category] = None
    content_rich: Optional[RichText] = None
    brand_config: Optional[JsonText] = None
    variables_schema: Optional[JsonText] = None
    speaker_notes: Optional[JsonText] = None
    contract_template_id: Optional[Id] = None


class ProposalTemplateUpdate(ProposalTemplateCreate):
    name: Optional[Name] = None


class ProposalTemplateListQuery(PageQuery):
    category: Optional[Category] = None


class ProposalTemplateListItem(Read):
    """A row of the template list: the template without its content and configuration (unbounded JSON text,
    which the detail answers; docs/decisions/proposals.md, "Lists")."""
    id: str
    name: str
    description: str | None
    category: str | None
    contract_template_id: str | None
    is_active: Flag01
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class ProposalTemplateRead(ProposalTemplateListItem):
    brand_config: str | None
    variables_schema: str | None
    speaker_notes: str | None


class ProposalTemplateDetail(ProposalTemplateRead):
    content_rich: str | None


class ProposalTemplateCreated(Read):
    id: str


# --- proposals ------------------------------------------------------------------------------------

class ProposalCreate(Input):
    NOT_NULL = frozenset({"title", "currency", "approver_ids", "variables"})

    title: Title
    template_id: Optional[Id] = None
    deal_id: Optional[Id] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    valid_until: CalendarDate = None
    currency: Currency = "AUD"
    speaker_notes: Optional[JsonText] = None
    brand_config: Optional[JsonText] = None
    approver_ids: list[Id] = Field(default_factory=list, max_length=50)
    variables: dict[VariableName, Text(5000)] = Field(default_factory=dict, max_length=100)


class ProposalUpdate(Input):
    NOT_NULL = frozenset({"title", "currency", "approver_ids"})

    title: Optional[Title] = None
    deal_id: Optional[Id] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    valid_until: CalendarDate = None
    currency: Optional[Currency] = None
    speaker_notes: Optional[JsonText] = None
    brand_config: Optional[JsonText] = None
    approver_ids: Optional[list[Id]] = Field(None, max_length=50)


class ProposalListQuery(PageQuery):
    status: Optional[Status] = None
    deal_id: Optional[Id] = None
    owner_id: Optional[Id] = None
    company_id: Optional[Id] = None


class ApproveBody(Input):
    comments: Optional[Comments] = None


class RequestChangesBody(Input):
    NOT_NULL = frozenset({"comments"})

    comments: Comments

    _comments = field_validator("comments")(non_blank)


SHARE_PASSWORD_MIN = 8


class ShareBody(Input):
    NOT_NULL = frozenset({"share_enabled"})

    share_enabled: Flag
    share_password: Optional[Annotated[str, StringConstraints(max_length=200)]] = None  # empty or null clears it

    @field_validator("share_password")
    @classmethod
    def _long_enough(cls, value):
        """At least 8 characters when set: anyone with the link may guess, 10 tries each 15 minutes (a 4-digit
        PIN fell in days)."""
        if value and len(value) < SHARE_PASSWORD_MIN:
            raise ValueError(f"must be at least {SHARE_PASSWORD_MIN} characters (or empty to clear it)")
        return value


class ShareResponse(Read):
    share_token: str | None


class ApprovalRead(Read):
    id: str
    user_id: str
    user_name: str | None
    listed: Flag01
    approved_at: IsoTimestamp | None
    comments: str | None


class ProposalListItem(Read):
    """A row of the proposal list: the proposal without its speaker_notes and brand_config (JSON text up to
    200,000 characters each, which the detail answers; docs/decisions/proposals.md, "Lists")."""
    id: str
    title: str
    deal_id: str | None
    company_id: str | None
    contact_id: str | None
    template_id: str | None
    page_id: str
    status: Status
    version: int
    currency: str
    total_amount: float | None
    valid_until: IsoDate | None
    share_token: str | None
    share_enabled: Flag01
    share_protected: Flag01
    owner_id: str | None
    created_by: str | None
    sent_at: IsoTimestamp | None
    viewed_at: IsoTimestamp | None
    accepted_at: IsoTimestamp | None
    declined_at: IsoTimestamp | None
    decline_reason: str | None
    responder_name: str | None
    responder_email: str | None
    contract_id: str | None
    project_id: str | None
    budget_id: str | None
    invoice_id: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    company_name: str | None
    contact_name: str | None
    deal_title: str | None
    owner_name: str | None
    approver_ids: list[str]


class ProposalRead(ProposalListItem):
    speaker_notes: str | None
    brand_config: str | None


class ProposalDetail(ProposalRead):
    approvals: list[ApprovalRead]


class CreatedProposal(Read):
    id: str
    page_id: str


class DuplicatedId(Read):
    id: str


class DuplicateResponse(Read):
    proposal: DuplicatedId


# --- pricing --------------------------------------------------------------------------------------

class PricingItemInput(Input):
    NOT_NULL = frozenset({"description", "quantity", "unit_price"})

    description: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    service_type_id: Optional[Id] = None
    quantity: Quantity = Decimal("1")
    unit_price: UnitPrice = Decimal("0")
    amount: Optional[Money] = None  # read-only: always quantity x unit_price (docs/decisions/proposals.md)
    notes: Optional[Text(5000)] = None


class PricingSectionInput(Input):
    NOT_NULL = frozenset({"title", "items"})

    title: Title
    position: Optional[Annotated[int, Field(ge=0, le=1_000_000, strict=True)]] = None
    items: list[PricingItemInput] = Field(default_factory=list, max_length=200)


class PricingReplace(Input):
    NOT_NULL = frozenset({"sections"})

    sections: list[PricingSectionInput] = Field(max_length=50)


class PricingItemRead(Read):
    id: str
    section_id: str
    description: str
    service_type_id: str | None
    quantity: float
    unit_price: float
    amount: float
    notes: str | None
    position: int


class PricingSectionRead(Read):
    id: str
    proposal_id: str
    title: str
    position: int
    items: list[PricingItemRead]


class PricingResponse(Read):
    sections: list[PricingSectionRead]
    total_amount: float | None
    currency: str


# --- public viewer and analytics -----------------------------------------------------------------

class VerifyBody(Input):
    NOT_NULL = frozenset({"password"})

    password: Annotated[str, StringConstraints(min_length=1, max_length=200)]


# slides a viewer may track: 0..499, the slides the analytics list shows (LIST_LIMIT). The server cannot know a
# proposal's real slide count (its content is one page; the viewer cuts it into slides), so this is the bound
# (docs/decisions/proposals.md, Analytics, session 22)
TRACK_SLIDES = 500


class TrackBody(Input):
    NOT_NULL = frozenset({"session_id", "slide_index", "duration_delta"})

    session_id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    slide_index: Annotated[int, Field(ge=0, le=TRACK_SLIDES - 1, strict=True)]
    duration_delta: Annotated[float, Field(ge=0, le=3600, allow_inf_nan=False, strict=True)]


class RespondBody(Input):
    NOT_NULL = frozenset({"name", "email"})

    name: Name
    email: Email


class DeclineBody(RespondBody):
    reason: Optional[Text(5000)] = None


class PublicPricingItem(Read):
    description: str
    quantity: float
    unit_price: float
    amount: float
    notes: str | None
    position: int


class PublicPricingSection(Read):
    title: str
    position: int
    items: list[PublicPricingItem]


class PublicProposal(Read):
    title: str
    status: Status
    currency: str
    total_amount: float | None
    valid_until: IsoDate | None
    content: str
    content_rich: str | None
    brand_config: str | None
    company_name: str | None
    sections: list[PublicPricingSection]


class PublicContent(Read):
    password_required: bool | None = None
    proposal: PublicProposal | None = None


class ProposalAnswerResponse(Read):
    success: Literal[True]


class SlideAnalytics(Read):
    slide_index: int
    views: int
    sessions: int
    total_duration: float
    average_duration: float


class SessionAnalytics(Read):
    session_id: str
    slides_viewed: int
    total_duration: float
    first_seen: IsoTimestamp
    last_seen: IsoTimestamp


class AnalyticsResponse(Read):
    analytics: list[SlideAnalytics]
    sessions: list[SessionAnalytics]
    total_sessions: int
    total_duration: float
