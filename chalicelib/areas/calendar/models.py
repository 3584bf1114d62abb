"""Calendar: per-user display settings, public holidays, culture events, the invite scan's record of the
invitations it has seen, and the place search cache. The sandbox provider's event table is declared with the
provider and listed here so that the schema checks see it."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import JSON, Base, Created, Timestamps, UTCDateTime, id_column
from chalicelib.providers.calendar.models import SandboxCalendarEvent  # noqa: F401 - migrated by calendar_0001

VIEWS = ("month", "week", "day")
CULTURE_STATUSES = ("planned", "confirmed", "cancelled")
SHOW_FLAGS = ("show_birthdays", "show_anniversaries", "show_leave", "show_public_holidays", "show_new_starters",
              "show_events")


class CalendarSettings(Base):
    __tablename__ = "calendar_settings"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    default_view: Mapped[str] = mapped_column(String(10), nullable=False, default="month")
    visible_calendar_ids: Mapped[str | None] = mapped_column(Text)  # JSON array text (document 3)
    show_birthdays: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_anniversaries: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_leave: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_public_holidays: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_new_starters: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_events: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    show_weekends: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    viewed_person_ids: Mapped[str | None] = mapped_column(Text)  # JSON array text
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class PublicHoliday(Created, Base):
    __tablename__ = "public_holidays"
    __table_args__ = (Index("ix_public_holidays_date", "date"),)

    id: Mapped[str] = id_column()
    date: Mapped[date] = mapped_column(Date, nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    region: Mapped[str | None] = mapped_column(String(100))


class CultureEvent(Timestamps, Base):
    __tablename__ = "culture_events"
    __table_args__ = (Index("ix_culture_events_date", "date"),)

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    date: Mapped[date] = mapped_column(Date, nullable=False)
    end_date: Mapped[date | None] = mapped_column(Date)
    location: Mapped[str | None] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="planned")
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class CalendarInvite(Base):
    """An invitation the invite scan notified (or the user answered through respond): never notified again."""

    __tablename__ = "calendar_invites"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    event_id: Mapped[str] = mapped_column(String(1024), primary_key=True)  # the provider's id whole
    notified_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    responded_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    response: Mapped[str | None] = mapped_column(String(20))


class PlaceSearchCache(Base):
    __tablename__ = "place_search_cache"

    key: Mapped[str] = mapped_column(String(300), primary_key=True)  # `<country>|<query lower-cased>`
    results: Mapped[list] = mapped_column(JSON, nullable=False)
    cached_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
