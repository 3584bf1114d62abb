"""Fixtures of the invoices tests."""
import pytest

from tests.areas.invoices.factories import ready_invoice


@pytest.fixture
def ready(db):
    """An invoice of Acme with a line, not yet in the ledger (`ready_invoice`)."""
    return ready_invoice(db)
