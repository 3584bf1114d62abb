"""Code no test ran (session 29 coverage audit): the default range of a to_date on 29 February starts on
28 February of the year before (docs/decisions/insights.md)."""
from __future__ import annotations


def test_the_default_range_of_29_february_starts_on_28_february_a_year_before(api, exec_user):
    answer = api.get("/api/insights/headcount?to_date=2024-02-29", as_=exec_user)
    assert answer.status == 200, answer
    labels = [point["label"] for point in answer.json["series"]]
    assert (labels[0], labels[-1], len(labels)) == ("2023-02", "2024-02", 13)
