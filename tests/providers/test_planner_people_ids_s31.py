"""Session 31: a Productive person whose id cannot be kept (none, no string or number, past user_mappings'
100 characters) is left out of the people listing, as Xero's employees are, so the user-mapping sync maps everyone
else; until now the whole listing was the planner's 502 and nobody was mapped. Bodies as
tests/providers/test_planner_wire.py (developer.productive.io/people.html)."""
import pytest

from tests.factories import make_user
from tests.providers.test_malformed_planner_s30b import PERSON, _sync


@pytest.mark.parametrize("unreadable", [
    {**PERSON, "id": {"id": "2836"}}, {**PERSON, "id": "9" * 101}, {**PERSON, "id": ""}, {**PERSON, "id": None},
    {**PERSON, "id": True}, {"type": "people", "attributes": PERSON["attributes"]},
])
def test_a_person_whose_id_cannot_be_kept_is_left_out_and_the_rest_are_mapped(api, db, exec_user, set_env,
                                                                              unreadable):
    ann = make_user(db, email="ann@malformed-planner.test", name="Ann Lee")
    bo = make_user(db, email="bo@malformed-planner.test", name="Bo Ray")
    db.flush()
    bo_person = {"id": 2837, "type": "people", "attributes": {"first_name": "Bo", "email": "BO@malformed-planner.test"}}
    answered = _sync(api, exec_user, set_env, {"data": [PERSON, {**unreadable, "attributes": {
        "first_name": "Cy", "email": "cy@malformed-planner.test"}}, bo_person]})
    assert answered.status == 200, answered.json
    assert not [line for line in answered.json["errors"] if line.startswith("planner")], answered.json
    assert answered.json["planner_matched"] == 2
    mapped = {m["user_id"]: m["planner_id"] for m in answered.json["mappings"]}
    assert (mapped[ann.id], mapped[bo.id]) == ("2835", "2837")
