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


GST_RATE = Decimal("0.10")  # document 2: 10% GST on invoices
# The ledger's (Xero, Australia) sales tax types that carry no GST: GST-free income and exports, BAS-excluded and
# input-taxed sales, none, zero-rated. A line with one of them has no tax; any other (none given, OUTPUT, a tax
# rate of the organisation's own) carries 10%.
GST_FREE_TAX_TYPES = frozenset({"EXEMPTOUTPUT", "EXEMPTEXPORT", "BASEXCLUDED", "INPUTTAXED", "NONE", "ZERORATED"})


def line_gst(amount, tax_type: str | None = None) -> Decimal:
    """A line's GST, as the ledger takes it: 10% of the line's amount rounded half up to the cent, or none for a
    GST-free tax type (GST_FREE_TAX_TYPES)."""
    if tax_type and tax_type.strip().upper() in GST_FREE_TAX_TYPES:
        return Decimal("0.00")
    return cents(Decimal(amount) * GST_RATE)
