"""Client profiles (decisions.md section 6): one per client company, created with defaults when a company
becomes a client; read by relationships (partners), the portal and proposals."""
from __future__ import annotations

from sqlalchemy import JSON, Boolean, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, cross_area_key, id_column


class ClientProfile(Timestamps, Base):
    __tablename__ = "client_profiles"
    __table_args__ = (UniqueConstraint("company_id", name="uq_client_profiles_company_id"),)

    id: Mapped[str] = id_column()
    company_id: Mapped[str] = mapped_column(cross_area_key("companies.id", ondelete="CASCADE"), nullable=False)
    dashboard_enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    delivery_manager_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # the onboarding area's migration (onboarding_0002) adds the key
    onboarding_template_id: Mapped[str | None] = mapped_column(String(36), cross_area_key(
        "onboarding_templates.id", ondelete="SET NULL", name="fk_client_profiles_onboarding_template_id_onboarding_templates"))
    portal_visibility: Mapped[dict] = mapped_column(JSON, nullable=False, default=dict)
    client_group: Mapped[str | None] = mapped_column(String(200), index=True)


class Contract(Timestamps, Base):
    """A client contract (decisions.md section 6): made by staff, or by a proposal's acceptance (signed by
    the accepting name and email). `signers`: a list of {name, email, signed_at}."""
    __tablename__ = "contracts"

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    company_id: Mapped[str | None] = mapped_column(cross_area_key("companies.id", ondelete="SET NULL"), index=True)
    proposal_id: Mapped[str | None] = mapped_column(String(36), index=True)  # proposals area, no FK
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="draft", index=True)
    signers: Mapped[list] = mapped_column(JSON, nullable=False, default=list)
    document_url: Mapped[str | None] = mapped_column(String(2000))
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
