"""Request and read models of the config lists area."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, StrictFloat, StrictInt

from chalicelib.core.schemas import Flag, Flag01, HexColour, Id, Input, IsoTimestamp, Name, Read, Text

# numbers are JSON numbers: a boolean or a numeric string is a wrong type (decisions.md section 4: 400)
Probability = Annotated[StrictFloat, Field(ge=0, le=100, allow_inf_nan=False)]
Position = Annotated[StrictInt, Field(ge=0, le=1_000_000)]


class _ItemFields(Input):
    color: HexColour = None
    icon: Optional[Text(100)] = None
    stage_type: Optional[Text(50)] = None
    probability: Optional[Probability] = None
    email_template_id: Optional[Id] = None



class ConfigItemCreate(_ItemFields):
    label: Name
    value: Name
    is_default: Flag = False
    position: Position = 99
    email_trigger_active: Flag = False


class ConfigItemUpdate(_ItemFields):
    NOT_NULL = frozenset({"label", "value", "is_default", "position", "email_trigger_active"})

    label: Optional[Name] = None
    value: Optional[Name] = None
    is_default: Optional[Flag] = None
    position: Optional[Position] = None
    email_trigger_active: Optional[Flag] = None


class ConfigListListQuery(Input):
    key: Optional[Text(100)] = None


class Reorder(Input):
    item_ids: list[Id] = Field(min_length=1, max_length=500)


# --- read models ----------------------------------------------------------------------------------

class ConfigListItemRead(Read):
    id: str
    list_id: str
    label: str
    value: str
    color: str | None
    icon: str | None
    is_default: Flag01
    is_system: Flag01
    position: int
    stage_type: str | None
    probability: float | None
    email_template_id: str | None
    email_trigger_active: Flag01
    created_at: IsoTimestamp


class ConfigListRead(Read):
    id: str
    key: str
    name: str
    description: str | None
    is_system: Flag01
    created_at: IsoTimestamp
    items: list[ConfigListItemRead]
