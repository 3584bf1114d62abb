"""Period arithmetic of the results (docs/decisions/portal.md, "Connected platforms and results"): rolling
windows ending at period_end, whole calendar months when it is a month end, the prior period adjoining."""
from datetime import date

import pytest

from chalicelib.areas.portal.queries_results import period, shift_months

D = date.fromisoformat


@pytest.mark.parametrize("kind, end, expected", [
    ("week", "2024-03-03", ("2024-02-26", "2024-03-03", "2024-02-19", "2024-02-25", 7)),
    ("month", "2024-03-31", ("2024-03-01", "2024-03-31", "2024-02-01", "2024-02-29", 31)),
    ("month", "2024-02-29", ("2024-02-01", "2024-02-29", "2024-01-01", "2024-01-31", 29)),
    ("month", "2023-02-28", ("2023-02-01", "2023-02-28", "2023-01-01", "2023-01-31", 28)),
    ("month", "2024-03-15", ("2024-02-16", "2024-03-15", "2024-01-16", "2024-02-15", 29)),
    ("month", "2024-03-30", ("2024-03-01", "2024-03-30", "2024-02-01", "2024-02-29", 30)),
    ("month", "2024-01-31", ("2024-01-01", "2024-01-31", "2023-12-01", "2023-12-31", 31)),
    ("quarter", "2024-03-31", ("2024-01-01", "2024-03-31", "2023-10-01", "2023-12-31", 91)),
    ("quarter", "2024-05-31", ("2024-03-01", "2024-05-31", "2023-12-01", "2024-02-29", 92)),
    ("year", "2024-12-31", ("2024-01-01", "2024-12-31", "2023-01-01", "2023-12-31", 366)),
    ("year", "2024-02-29", ("2023-03-01", "2024-02-29", "2022-03-01", "2023-02-28", 366)),
    ("year", "2025-02-28", ("2024-03-01", "2025-02-28", "2023-03-01", "2024-02-29", 365)),
    ("year", "2024-06-15", ("2023-06-16", "2024-06-15", "2022-06-16", "2023-06-15", 366)),
])
def test_periods_and_their_prior(kind, end, expected):
    p = period(kind, D(end))
    start, stop, prior_start, prior_end, days = expected
    assert (p["start"], p["end"], p["prior_start"], p["prior_end"], p["days"]) == (
        D(start), D(stop), D(prior_start), D(prior_end), days)
    assert (p["start"] - p["prior_end"]).days == 1  # adjoining: no overlap, no gap


def test_shift_months_keeps_month_ends_and_clamps_other_days():
    assert shift_months(D("2024-03-31"), 1) == D("2024-02-29")
    assert shift_months(D("2024-02-29"), 1) == D("2024-01-31")
    assert shift_months(D("2024-04-30"), 1) == D("2024-03-31")
    assert shift_months(D("2024-03-30"), 1) == D("2024-02-29")
    assert shift_months(D("2024-01-15"), 12) == D("2023-01-15")
    assert shift_months(D("2024-01-31"), 1) == D("2023-12-31")
