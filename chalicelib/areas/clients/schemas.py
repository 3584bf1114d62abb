"""Request and read models of client profiles (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import AfterValidator, Field, StringConstraints, field_validator

from chalicelib.core.schemas import (Email, Flag, Flag01, Id, Input, IsoTimestamp, Name, PageQuery, QueryFlag, Read,
                                     Timestamp, choice)
from chalicelib.core.spelling import composed


class ClientProfileUpdate(Input):
    NOT_NULL = frozenset({"dashboard_enabled", "portal_visibility"})

    dashboard_enabled: Optional[Flag] = None
    delivery_manager_id: Optional[Id] = None
    onboarding_template_id: Optional[Id] = None
    portal_visibility: Optional[dict[Annotated[str, StringConstraints(max_length=100)], Flag]] = None
    client_group: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]] = None

    @field_validator("client_group")
    @classmethod
    def _no_blank_label(cls, value):
        return value or None  # a blank label is no group (null), not an empty label that companies would share


class ClientProfileRead(Read):
    id: str
    company_id: str
    dashboard_enabled: Flag01
    delivery_manager_id: str | None
    onboarding_template_id: str | None
    portal_visibility: dict
    client_group: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class ClientProfileCreate(ClientProfileUpdate):
    """`POST /api/clients/:companyId/profile`: the profile of a company that becomes a client."""


class ClientProfileListQuery(PageQuery):
    client_group: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]] = None
    delivery_manager_id: Optional[Id] = None
    dashboard_enabled: QueryFlag = None


class ClientProfileListRead(ClientProfileRead):
    company_name: str
    delivery_manager_name: str | None


# ---------------------------------------------------------------- contracts

ContractStatus = choice("draft", "sent", "signed", "cancelled", "expired")
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
DocumentUrl = Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000,
                                               pattern=r"^https?://[^\s]+$")]


class Signer(Input):
    name: Name
    # in Unicode NFC, letter case kept (session 32): the client portal lists a contract to the company one of whose
    # contacts signed it, comparing the addresses letter case aside
    email: Annotated[Email, AfterValidator(composed)]
    signed_at: Timestamp = None


class ContractCreate(Input):
    NOT_NULL = frozenset({"status", "signers"})

    title: Title
    company_id: Optional[Id] = None
    proposal_id: Optional[Id] = None
    status: ContractStatus = "draft"
    signers: list[Signer] = Field(default_factory=list, max_length=20)
    document_url: Optional[DocumentUrl] = None


class ContractUpdate(ContractCreate):
    NOT_NULL = frozenset({"title", "status", "signers"})

    title: Optional[Title] = None
    status: Optional[ContractStatus] = None
    signers: Optional[list[Signer]] = Field(None, max_length=20)


class ContractListQuery(PageQuery):
    company_id: Optional[Id] = None
    proposal_id: Optional[Id] = None
    status: Optional[ContractStatus] = None


class SignerRead(Read):
    name: str
    email: str
    signed_at: str | None


class ContractRead(Read):
    id: str
    title: str
    company_id: str | None
    company_name: str | None
    proposal_id: str | None
    status: str
    signers: list[SignerRead]
    document_url: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
