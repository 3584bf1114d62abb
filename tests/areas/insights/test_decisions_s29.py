"""Session 29 (decisions documents against the code): insights.

docs/decisions/insights.md, "Small groups": salary figures are given to a caller without admin:manage when they
describe the whole organisation today, "no `location` or `gender` filter". The project's lists take an empty or blank
text filter as no filter (a screen's "all": docs/decisions/tasks.md, the client profiles' `client_group=`), but here
`location=` (or `gender=`) was a 400 and `location=%20` a filter matching nobody: every count 0 and the salary figures
withheld from the manager who asked for "all locations"."""
from tests.areas.insights.test_sensitive_figures_s28 import _sydney


def _get(api, user, path, query):
    answer = api.get(f"/api/insights/{path}?{query}", as_=user)
    assert answer.status == 200, (query, answer)
    return answer.json


def test_an_empty_or_blank_location_or_gender_is_no_filter(api, db):
    manager = _sydney(db)
    whole = _get(api, manager, "compensation", "")
    assert whole["median_salary"] == 101728.0  # the organisation today: answered to a manager
    overview = _get(api, manager, "overview", "")
    for query in ("location=", "location=%20%20", "gender=", "gender=%20", "location=&gender=%20"):
        assert _get(api, manager, "compensation", query) == whole, query
        assert _get(api, manager, "overview", query) == overview, query
