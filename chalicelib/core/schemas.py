"""Pieces every area's request models share: the base input model and common field types."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationInfo, field_validator

Id = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=36)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Search = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]


class Input(BaseModel):
    """A request body or query: unknown fields ignored (decisions.md section 4).

    `NOT_NULL` names the fields that may be left out but never sent as null (an update may clear an
    optional field with null, never a required one). `changes()` answers the fields the caller sent.
    """

    model_config = ConfigDict(extra="ignore")
    NOT_NULL: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name in cls.NOT_NULL:
            raise ValueError("may not be null")
        return value

    def changes(self) -> dict:
        """`{field: value}` for the fields present in the request, in declaration order."""
        return {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}
