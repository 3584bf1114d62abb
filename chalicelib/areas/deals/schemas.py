"""Request and read models of companies, contacts and deals (unknown fields are ignored)."""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional

from pydantic import AfterValidator, Field, StringConstraints

from chalicelib.core.schemas import (Email, Id, Input, IsoTimestamp, Money, Name, PageQuery, QueryFlag, Read, Search,
                                     choice)
from chalicelib.core.spelling import composed

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Phone = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]
_HTTP_URL = re.compile(r"https?://[^\s/?#\\][^\s]*", re.IGNORECASE)
# A bare domain as staff write a website: host names with a dot (letters, digits, hyphens), an optional port, then
# an optional path, query or fragment. No scheme can match it (a scheme's colon would need a dot before it).
_BARE_DOMAIN = re.compile(r"(?:[^\W_](?:[^\W_]|-){0,62}\.)+[^\W_](?:[^\W_]|-){0,62}(?::\d{1,5})?(?:[/?#][^\s]*)?")
URL_MAX = 500  # the columns are String(500)


def _link(value: str) -> str:
    """A link shown to every deals viewer: an http(s) URL as given, or a bare domain ("agency.com",
    "www.agency.com/about") stored with `https://` in front; anything else (javascript:, data:, vbscript:, ftp:,
    `//host`) is a 400 naming the field. Empty stays empty (no link)."""
    if not value or _HTTP_URL.fullmatch(value):
        return value
    if not _BARE_DOMAIN.fullmatch(value):
        raise ValueError("must be an http(s) URL or a domain such as example.com")
    value = f"https://{value}"
    if len(value) > URL_MAX:
        raise ValueError(f"must be at most {URL_MAX} characters (with https:// in front)")
    return value


Url = Annotated[str, StringConstraints(strip_whitespace=True, max_length=URL_MAX), AfterValidator(_link)]


# in Unicode NFC, letter case kept, as admin keeps a user's (session 32): the client portal lists a contract to the
# company whose contact signed it, comparing addresses letter case aside, and "jose\u0301@x" and "jos\u00e9@x" read the
# same but compared apart
ContactEmail = Annotated[Email, AfterValidator(composed)]
Currency = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z]{3}$")]
Page = Annotated[int, Field(ge=1, le=100000)]
CompanyStatus = choice("prospect", "client")
DealStatus = choice("open", "won", "lost")


class CompanyCreate(Input):
    NOT_NULL = frozenset({"name", "status"})

    name: Name
    domain: Optional[Short] = None
    website: Optional[Url] = None
    industry: Optional[Short] = None
    phone: Optional[Phone] = None
    address: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)]] = None
    status: CompanyStatus = "prospect"
    owner_id: Optional[Id] = None


class CompanyUpdate(CompanyCreate):
    name: Optional[Name] = None
    status: Optional[CompanyStatus] = None


class CompanyListQuery(Input):
    search: Optional[Search] = None
    page: Page = 1


class ContactCreate(Input):
    NOT_NULL = frozenset({"first_name"})

    first_name: Name
    last_name: Optional[Short] = None
    email: Optional[ContactEmail] = None
    phone: Optional[Phone] = None
    job_title: Optional[Short] = None
    company_id: Optional[Id] = None
    network_url: Optional[Url] = None


class ContactUpdate(ContactCreate):
    first_name: Optional[Name] = None


class ContactListQuery(Input):
    search: Optional[Search] = None
    company_id: Optional[Id] = None
    page: Page = 1


class DealCreate(Input):
    NOT_NULL = frozenset({"title", "currency", "status"})

    title: Title
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    owner_id: Optional[Id] = None
    stage_id: Optional[Id] = None
    value: Optional[Money] = Field(default=None, ge=0)
    currency: Currency = "AUD"
    status: DealStatus = "open"
    website: Optional[Url] = None


class DealUpdate(DealCreate):
    title: Optional[Title] = None
    currency: Optional[Currency] = None
    status: Optional[DealStatus] = None


class DealListQuery(PageQuery):
    NOT_NULL = frozenset({"status"})

    stage_id: Optional[Id] = None
    status: Optional[DealStatus] = None
    owner_id: Optional[Id] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    search: Optional[Search] = None


# --- read models ----------------------------------------------------------------------------------

class CompanyRead(Read):
    id: str
    name: str
    domain: str | None
    website: str | None
    industry: str | None
    phone: str | None
    address: str | None
    status: str
    owner_id: str | None
    network_data: dict[str, Any] | None
    network_enriched_at: IsoTimestamp | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    owner_name: str | None


class ContactRead(Read):
    id: str
    first_name: str
    last_name: str | None
    email: str | None
    phone: str | None
    job_title: str | None
    company_id: str | None
    network_url: str | None
    network_data: dict[str, Any] | None
    network_enriched_at: IsoTimestamp | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    name: str | None
    company_name: str | None


class DealRead(Read):
    id: str
    title: str
    company_id: str | None
    contact_id: str | None
    owner_id: str | None
    stage_id: str | None
    value: float | None
    currency: str
    status: str
    website: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    company_name: str | None
    contact_name: str | None
    owner_name: str | None
    stage_label: str | None
    stage_color: str | None
    probability: float | None


class CompanyPage(Read):
    """The spec's page of companies: 50 per `page`, with the total."""
    companies: list[CompanyRead]
    total: int
    page: int


class ContactPage(Read):
    """The spec's page of contacts: 50 per `page`, with the total."""
    contacts: list[ContactRead]
    total: int
    page: int


class CompanyDetail(Read):
    """A company with its contacts (by name) and deals (newest first); a company holds at most 500 of each."""
    company: CompanyRead
    contacts: list[ContactRead]
    deals: list[DealRead]


class ContactDetail(Read):
    """A contact with its deals (newest first); a contact holds at most 500 deals."""
    contact: ContactRead
    deals: list[DealRead]


# ---- enrichment ----

class EnrichQuery(Input):
    force: QueryFlag = None  # absent: false


class EnrichResult(Read):
    """`{ success: true, network_data }` (document 2): the stored record."""
    success: Literal[True]
    network_data: dict
