"""The floor for cold-start figures: the least a function of this service could import.

A Chalice app importing chalice, sqlalchemy.orm, pydantic, jwt, the driver (pg8000) and SQLAlchemy's
Postgres dialect for it (every function loads the dialect on its first connection; an area whose models
declare Postgres-only index options, such as the trigram indexes of tasks and projects, loads it at
import instead), serving one route from one table. bench/run.py times its import against each area's
function and the whole app; an area should cost at most 1.15 times this (issue 11 item 7).
"""
from __future__ import annotations

import os
import uuid

import jwt  # noqa: F401 - every real function verifies tokens
import pg8000  # noqa: F401 - the driver
import sqlalchemy.dialects.postgresql.pg8000  # noqa: F401 - the dialect every function loads to connect
from chalice import Chalice
from pydantic import BaseModel
from sqlalchemy import String, create_engine, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

app = Chalice(app_name="floor")
_engine = None


class Base(DeclarativeBase):
    pass


class Item(Base):
    __tablename__ = "floor_items"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=lambda: str(uuid.uuid4()))
    name: Mapped[str] = mapped_column(String(200))


class ItemOut(BaseModel):
    id: str
    name: str


@app.route("/items", methods=["GET"])
def list_items():
    global _engine
    if _engine is None:
        _engine = create_engine(os.environ["DATABASE_URL"])
    with Session(_engine) as session:
        return {"items": [ItemOut(id=i.id, name=i.name).model_dump() for i in session.scalars(select(Item))]}
