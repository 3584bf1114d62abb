"""The service's one rounding rule for money: to the cent, half up (away from zero), as the ledger (Xero) rounds a
line's amount. A line's amount is its quantity x unit price, exact in Decimal, then rounded so: proposals' items,
budgets' lines and invoices' lines (and the sandbox ledger) all use `line_amount`, so an accepted proposal's total
is its budget's and its invoice's to the cent."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def cents(value) -> Decimal:
    """`value` (a Decimal, an int or a numeric string; None is 0) rounded half up to the cent."""
    return Decimal(value or 0).quantize(CENT, rounding=ROUND_HALF_UP)


def line_amount(quantity, unit_price) -> Decimal:
    """quantity x unit_price, exact, rounded half up to the cent (Xero's LineAmount)."""
    return cents(Decimal(quantity) * Decimal(unit_price))
