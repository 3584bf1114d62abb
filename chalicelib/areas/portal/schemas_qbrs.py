"""Request and read models of quarterly business reviews: the staff CRUD (/api/clients/:companyId/qbrs) and
the portal's presented QBRs."""

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import Flag, Flag01, Input, IsoTimestamp, Name, Read, Text


# ---------------------------------------------------------------- inputs

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


# ---------------------------------------------------------------- read models

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
