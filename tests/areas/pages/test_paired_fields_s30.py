"""Session 30 (audit: the same situation answered the same way). A 400 about the request's fields names them in
`details` (decisions.md section 4), as every other area's refusal of a field does (an invoice's
generate_from_budget without budget_id names budget_id). A page's entity_type without entity_id, or the reverse,
answered "entity_type and entity_id go together" with no details, in the list's query and in a create's body."""
import pytest

from tests.factories import grant, make_user


def _writer(db):
    user = make_user(db, access_level="employee")
    grant(db, user, "pages", "update")
    return user


@pytest.mark.parametrize("given, missing", [("entity_type=project", "entity_id"),
                                            ("entity_id=00000000-0000-0000-0000-000000000000", "entity_type")])
def test_a_list_filter_without_its_pair_names_the_missing_parameter(api, db, given, missing):
    response = api.get(f"/api/pages?{given}", as_=_writer(db))
    assert response.status == 400, response
    assert response.json["error"] == "entity_type and entity_id go together"
    assert [detail["field"] for detail in response.json["details"]] == [missing]


@pytest.mark.parametrize("given, missing", [({"entity_type": "project"}, "entity_id"),
                                            ({"entity_id": "00000000-0000-0000-0000-000000000000"}, "entity_type")])
def test_a_create_without_the_pair_names_the_missing_field(api, db, given, missing):
    response = api.post("/api/pages", as_=_writer(db), json={"title": "Notes", **given})
    assert response.status == 400, response
    assert response.json["error"] == "entity_type and entity_id go together"
    assert [detail["field"] for detail in response.json["details"]] == [missing]
