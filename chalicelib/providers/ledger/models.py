"""The ledger sandbox's state: the invoices it holds, with their status, payments and PDF (migration
connections_0001, which holds the providers' sandbox tables), and the idempotency key each was created with
(connections_0002)."""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import JSON, LargeBinary, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, UTCDateTime, id_column


class LedgerSandboxInvoice(Timestamps, Base):
    __tablename__ = "ledger_sandbox_invoices"

    id: Mapped[str] = id_column()
    invoice_number: Mapped[str] = mapped_column(String(50), nullable=False)
    contact_name: Mapped[str] = mapped_column(String(255), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    currency: Mapped[str] = mapped_column(String(3), nullable=False)
    total: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False)
    amount_paid: Mapped[Decimal] = mapped_column(Numeric(16, 2), nullable=False)
    lines: Mapped[list] = mapped_column(JSON, nullable=False)
    payments: Mapped[list] = mapped_column(JSON, nullable=False)
    pdf: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    emailed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    idempotency_key: Mapped[str | None] = mapped_column(String(128), unique=True)
