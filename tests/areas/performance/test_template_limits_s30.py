"""Session 30 (limits audit): a review template's `items` are at most 100 (docs/decisions/performance.md,
Templates), on create and on update; an item's area is 1 to 200 characters and its label 1 to 500 (the columns'
lengths). Exactly the limit is taken; one more is a 400 naming the field."""
import pytest

BASE = "/api/performance/templates"


def _items(n: int, **item) -> list[dict]:
    return [{"area": f"Area {i}", "label": f"KPI {i}", **item} for i in range(n)]


@pytest.fixture
def template_id(api, exec_user):
    made = api.post(BASE, as_=exec_user, json={"name": "Quarterly"})
    assert made.status == 201, made
    return made.json["template"]["id"]


@pytest.mark.parametrize("at_most, one_more", [
    (_items(100), _items(101)),
    (_items(1, area="a" * 200), _items(1, area="a" * 201)),
    (_items(1, label="l" * 500), _items(1, label="l" * 501)),
])
def test_a_template_takes_exactly_its_limits_and_refuses_one_more(api, exec_user, template_id, at_most, one_more):
    made = api.post(BASE, as_=exec_user, json={"name": "Annual", "items": at_most})
    assert made.status == 201, made
    updated = api.put(f"{BASE}/{template_id}", as_=exec_user, json={"items": at_most})
    assert updated.status == 200, updated
    for template in (made.json["template"], updated.json["template"]):
        assert sorted((i["area"], i["label"]) for i in template["items"]) == sorted(
            (i["area"], i["label"]) for i in at_most)
    for answer in (api.post(BASE, as_=exec_user, json={"name": "Annual", "items": one_more}),
                   api.put(f"{BASE}/{template_id}", as_=exec_user, json={"items": one_more})):
        assert answer.status == 400, answer
        assert {d["field"].split(".")[0] for d in answer.json["details"]} == {"items"}
