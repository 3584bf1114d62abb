"""Session 30 (limits audit): the place search's query at its boundaries (document 3, Limits: "query at least 2
characters"; docs/decisions/calendar.md, Places: `q` 2 to 200 characters), counted in characters once trimmed. A
query of 200 characters that lower-case to more (`İ` lower-cases to two) is still one the cache can key."""
from urllib.parse import quote

import pytest


def _places(api, user, q: str):
    return api.get(f"/api/calendar/places?q={quote(q)}", as_=user)


@pytest.mark.parametrize("q", ["ab", " ab ", "a" * 200, f"  {'a' * 200}  ", "İ" * 200])
def test_a_query_of_2_to_200_characters_is_searched(api, employee, q):
    answer = _places(api, employee, q)
    assert answer.status == 200, answer
    assert len(answer.json["results"]) <= 5


@pytest.mark.parametrize("q", ["a", " a ", "a" * 201, "İ" * 201])
def test_a_query_of_1_or_201_characters_is_a_400_naming_q(api, employee, q):
    answer = _places(api, employee, q)
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == ["q"]
