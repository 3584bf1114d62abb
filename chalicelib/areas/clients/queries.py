"""The clients area's leaf module: the contract field list and the signer read shape that the staff routes
(service_contracts.py) and the portal's reads (service.py) share. service.py and service_*.py import it, never
the reverse."""
from __future__ import annotations

CONTRACT_FIELDS = ("id", "title", "company_id", "proposal_id", "status", "signers", "document_url", "created_by",
                   "created_at", "updated_at")


def signer_records(signers) -> list[dict]:
    """A contract's stored signers as answered: name, email and signed_at of each (nothing else stored)."""
    return [{"name": s.get("name"), "email": s.get("email"), "signed_at": s.get("signed_at")}
            for s in (signers or []) if isinstance(s, dict)]
