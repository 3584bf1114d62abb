"""The invoice's moves in the accounting ledger (filled in by issue 15 item 3)."""
from __future__ import annotations


def refresh_live(ctx, invoice) -> None:
    """Read the ledger status of a linked invoice (item 3)."""


def remove_from_ledger(ctx, invoice) -> None:
    """Delete or void a linked invoice in the ledger before its local deletion (item 3)."""
