"""Request and read models of relationships (unknown fields are ignored)."""
from __future__ import annotations

import re
from typing import Annotated, Optional

from pydantic import Field, StringConstraints, ValidationInfo, field_validator

from chalicelib.core.schemas import CalendarDate, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Money, Read, Text, choice

from .models import MESSAGE_CHANNELS

SMS_UNITS = 1600  # Twilio's longest Body, in UTF-16 code units


def _within_twilio(value: str | None) -> str | None:
    """At most 1600 characters as Twilio counts a Body (error 21617): UTF-16 code units, so an emoji is two. A body
    over it was answered `queued` here and refused by Twilio, the message then `failed` (session 28)."""
    if value is not None and len(value.encode("utf-16-le")) // 2 > SMS_UNITS:
        raise ValueError(f"must be at most {SMS_UNITS} characters (an emoji counts as two)")
    return value

Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Required = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Kind = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
Email = Annotated[str, StringConstraints(strip_whitespace=True, max_length=320,
                                         pattern=r"^$|^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Phone = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]
_BIRTHDAY = re.compile(r"^(\d{4}-)?(\d{2})-(\d{2})$")


def _birthday(value):
    """MM-DD or a full YYYY-MM-DD date, a real day of the year."""
    if value in (None, ""):
        return None
    match = _BIRTHDAY.fullmatch(value)
    if not match:
        raise ValueError("must be MM-DD or YYYY-MM-DD")
    from datetime import date

    year = int(match.group(1)[:4]) if match.group(1) else 2000  # a leap year: 02-29 is a birthday
    try:
        date(year, int(match.group(2)), int(match.group(3)))
    except ValueError as exc:
        raise ValueError("must be a real date (MM-DD or YYYY-MM-DD)") from exc
    return value


class ProfileUpdate(Input):
    NOT_NULL = frozenset({"sms_opt_in", "interests"})

    communication_preference: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]] = None
    communication_notes: Optional[Text(5000)] = None
    personal_notes: Optional[Text(5000)] = None
    birthday: Optional[str] = None
    birthday_year: Optional[int] = Field(None, ge=1900, le=2100, strict=True)
    home_address: Optional[Text(1000)] = None
    interests: Optional[list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]]] = \
        Field(None, max_length=50)
    dietary_requirements: Optional[Text(500)] = None
    preferred_name: Optional[Short] = None
    assistant_name: Optional[Short] = None
    assistant_email: Optional[Email] = None
    phone_number: Optional[Phone] = None
    msgapp_number: Optional[Phone] = None
    sms_opt_in: Optional[Flag] = None

    @field_validator("birthday")
    @classmethod
    def _check_birthday(cls, value):
        return _birthday(value)


class LifeEventCreate(Input):
    NOT_NULL = frozenset({"event_type", "title", "recurs_annually", "auto_action_enabled", "auto_action_days_before"})

    event_type: Kind
    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
    event_date: CalendarDate = None
    recurs_annually: Flag = False
    description: Optional[Text(5000)] = None
    auto_action_enabled: Flag = True
    auto_action_days_before: int = Field(7, ge=0, le=365, strict=True)
    company_id: Optional[Id] = None


class LifeEventUpdate(Input):
    NOT_NULL = frozenset({"event_type", "title", "recurs_annually", "auto_action_enabled", "auto_action_days_before"})

    event_type: Optional[Kind] = None
    title: Optional[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]] = None
    event_date: CalendarDate = None
    recurs_annually: Optional[Flag] = None
    description: Optional[Text(5000)] = None
    auto_action_enabled: Optional[Flag] = None
    auto_action_days_before: Optional[int] = Field(None, ge=0, le=365, strict=True)


class ActionCreate(Input):
    NOT_NULL = frozenset({"title", "action_type"})

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    action_type: Kind
    description: Optional[Text(5000)] = None
    assigned_to_user_id: Optional[Id] = None
    due_date: CalendarDate = None
    message_body: Optional[Text(1600)] = None
    company_id: Optional[Id] = None

    _message_body_fits = field_validator("message_body")(_within_twilio)


class ActionUpdate(Input):
    NOT_NULL = frozenset({"status"})

    status: choice("done", "dismissed")


class MessageCreate(Input):
    NOT_NULL = frozenset({"channel", "body"})

    channel: choice(*MESSAGE_CHANNELS)
    body: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1600)]
    media_url: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000,
                                                         pattern=r"^https://\S+$")]] = Field(None, validate_default=True)
    auto_action_id: Optional[Id] = None

    _body_fits = field_validator("body")(_within_twilio)

    @field_validator("media_url")
    @classmethod
    def _media_for_mms(cls, media_url, info: ValidationInfo):
        """A 400 naming media_url, checked when left out too (validate_default): a model validator's detail named
        `body`, this route's message text (session 32). `channel` is declared, so validated, first; absent from
        `info.data` when invalid (its own detail)."""
        channel = info.data.get("channel")
        if channel == "mms" and not media_url:
            raise ValueError("an https URL is required for mms")
        if channel is not None and channel != "mms" and media_url:
            raise ValueError("is for mms only")
        return media_url


class PartnerCreate(Input):
    NOT_NULL = frozenset({"partner_company_name"})

    partner_company_name: Required
    partner_contact_name: Optional[Short] = None
    partner_contact_email: Optional[Email] = None
    relationship_type: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]] = None
    estimated_deal_size: Optional[Money] = Field(None, ge=0)
    notes: Optional[Text(5000)] = None
    contact_id: Optional[Id] = None


class PartnerUpdate(PartnerCreate):
    partner_company_name: Optional[Required] = None


# --- read models ----------------------------------------------------------------------------------

class ProfileRead(Read):
    id: str
    contact_id: str
    communication_preference: str | None
    communication_notes: str | None
    personal_notes: str | None
    birthday: str | None
    birthday_year: int | None
    home_address: str | None
    interests: list[str]
    dietary_requirements: str | None
    preferred_name: str | None
    assistant_name: str | None
    assistant_email: str | None
    phone_number: str | None
    msgapp_number: str | None
    sms_opt_in: Flag01
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class ProfileDetail(Read):
    profile: ProfileRead
    sms_connected: Flag01


class LifeEventRead(Read):
    id: str
    contact_id: str
    event_type: str
    title: str
    event_date: IsoDate | None
    recurs_annually: Flag01
    description: str | None
    auto_action_enabled: Flag01
    auto_action_days_before: int
    company_id: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class ActionRead(Read):
    id: str
    contact_id: str
    life_event_id: str | None
    occurrence_date: IsoDate | None
    title: str
    action_type: str
    description: str | None
    assigned_to_user_id: str | None
    due_date: IsoDate | None
    message_body: str | None
    company_id: str | None
    status: choice("pending", "done", "dismissed")
    is_auto: Flag01
    completed_at: IsoTimestamp | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    first_name: str | None
    last_name: str | None
    contact_email: str | None
    company_name: str | None
    assigned_to_name: str | None


class MessageRead(Read):
    id: str
    contact_id: str
    channel: choice(*MESSAGE_CHANNELS)
    body: str
    media_url: str | None
    to_number: str
    status: str
    provider_message_id: str | None
    error: str | None
    auto_action_id: str | None
    sent_by: str | None
    created_at: IsoTimestamp


class PartnerRead(Read):
    id: str
    company_id: str
    partner_company_name: str
    partner_contact_name: str | None
    partner_contact_email: str | None
    relationship_type: str | None
    estimated_deal_size: float | None
    notes: str | None
    contact_id: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class SummaryContactRead(Read):
    id: str
    first_name: str
    last_name: str | None
    name: str | None
    email: str | None
    phone: str | None
    job_title: str | None
    communication_preference: str | None
    communication_notes: str | None
    preferred_name: str | None
    phone_number: str | None
    msgapp_number: str | None
    sms_opt_in: Flag01


class RelationshipSummary(Read):
    contacts: list[SummaryContactRead]
    events: list[LifeEventRead]
    actions: list[ActionRead]
    partners: list[PartnerRead]
    messages: list[MessageRead]
