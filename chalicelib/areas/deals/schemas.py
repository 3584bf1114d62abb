"""Request models of companies, contacts and deals (unknown fields are ignored)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Phone = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]
Url = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]
Email = Annotated[str, StringConstraints(strip_whitespace=True, max_length=320,
                                         pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Id = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=36)]
Currency = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z]{3}$")]
Page = Annotated[int, Field(ge=1, le=100000)]
Search = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]

REQUIRED = {"name", "first_name", "title", "status", "currency"}


class _Input(BaseModel):
    model_config = ConfigDict(extra="ignore")

    @field_validator("*", mode="before")
    @classmethod
    def _required_not_null(cls, value, info):
        if value is None and info.field_name in REQUIRED:
            raise ValueError(f"{info.field_name} may not be null")
        return value

    def changes(self) -> dict:
        """The fields the caller sent (so that an update may set a field to null)."""
        return {key: getattr(self, key) for key in self.model_fields_set}


class CompanyCreate(_Input):
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


class CompanyQuery(_Input):
    search: Optional[Search] = None
    page: Page = 1


class ContactCreate(_Input):
    first_name: Name
    last_name: Optional[Short] = None
    email: Optional[Email] = None
    phone: Optional[Phone] = None
    job_title: Optional[Short] = None
    company_id: Optional[Id] = None
    network_url: Optional[Url] = None


class ContactUpdate(ContactCreate):
    first_name: Optional[Name] = None


class ContactQuery(_Input):
    search: Optional[Search] = None
    company_id: Optional[Id] = None
    page: Page = 1


DealStatus = Literal["open", "won", "lost"]


class DealCreate(_Input):
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


class DealQuery(_Input):
    stage_id: Optional[Id] = None
    status: Optional[DealStatus] = None
    owner_id: Optional[Id] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    search: Optional[Search] = None
