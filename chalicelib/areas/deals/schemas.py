"""Request models of companies, contacts and deals (unknown fields are ignored)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import Id, Input, Name, Search

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Phone = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]
Url = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]
Email = Annotated[str, StringConstraints(strip_whitespace=True, max_length=320,
                                         pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Currency = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z]{3}$")]
Page = Annotated[int, Field(ge=1, le=100000)]


class CompanyCreate(Input):
    NOT_NULL = frozenset({"name", "status"})

    name: Name
    domain: Optional[Short] = None
    website: Optional[Url] = None
    industry: Optional[Short] = None
    phone: Optional[Phone] = None
    address: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)]] = None
    status: Literal["prospect", "client"] = "prospect"
    owner_id: Optional[Id] = None


class CompanyUpdate(CompanyCreate):
    name: Optional[Name] = None
    status: Optional[Literal["prospect", "client"]] = None


class CompanyQuery(Input):
    search: Optional[Search] = None
    page: Page = 1


class ContactCreate(Input):
    NOT_NULL = frozenset({"first_name"})

    first_name: Name
    last_name: Optional[Short] = None
    email: Optional[Email] = None
    phone: Optional[Phone] = None
    job_title: Optional[Short] = None
    company_id: Optional[Id] = None
    network_url: Optional[Url] = None


class ContactUpdate(ContactCreate):
    first_name: Optional[Name] = None


class ContactQuery(Input):
    search: Optional[Search] = None
    company_id: Optional[Id] = None
    page: Page = 1


DealStatus = Literal["open", "won", "lost"]


class DealCreate(Input):
    NOT_NULL = frozenset({"title", "currency", "status"})

    title: Title
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    owner_id: Optional[Id] = None
    stage_id: Optional[Id] = None
    value: Optional[Annotated[Decimal, Field(ge=0, max_digits=14, decimal_places=2)]] = None
    currency: Currency = "AUD"
    status: DealStatus = "open"
    website: Optional[Url] = None


class DealUpdate(DealCreate):
    title: Optional[Title] = None
    currency: Optional[Currency] = None
    status: Optional[DealStatus] = None


class DealQuery(Input):
    NOT_NULL = frozenset({"status"})

    stage_id: Optional[Id] = None
    status: Optional[DealStatus] = None
    owner_id: Optional[Id] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    search: Optional[Search] = None
