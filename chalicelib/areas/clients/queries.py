"""The clients area's leaf module: the contract field list, the signer read shape and a contract's `created`
history entry, which the staff routes (service_contracts.py), the portal's reads and the proposals' contract
(service.py) share. service.py and service_*.py import it, never the reverse."""
from __future__ import annotations

CONTRACT_FIELDS = ("id", "title", "company_id", "proposal_id", "status", "signers", "document_url", "created_by",
                   "created_at", "updated_at")


def signer_records(signers) -> list[dict]:
    """A contract's stored signers as answered: name, email and signed_at of each (nothing else stored)."""
    return [{"name": s.get("name"), "email": s.get("email"), "signed_at": s.get("signed_at")}
            for s in (signers or []) if isinstance(s, dict)]


def record_contract_created(db, contract, actor_id: str | None) -> None:
    """The `created` history entry of a contract, made by staff or by a proposal's acceptance."""
    from chalicelib.core import history

    history.record(db, entity_type="contract", entity_id=contract.id, action="created", actor_id=actor_id,
                   changes={"title": contract.title, "status": contract.status, "company_id": contract.company_id})
