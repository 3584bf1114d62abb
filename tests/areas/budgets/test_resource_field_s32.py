"""Session 32, audit "error bodies that name the wrong field": a budget update that changes only `resource_type` so
that the stored resource_id no longer names a record of that type is a 400 naming `resource_type`, the field sent
(as the tasks area names it); it named `resource_id`, a field the request did not send."""
from tests.areas.budgets.factories import make_budget


def test_a_type_change_alone_names_resource_type(api, db, exec_user):
    budget = make_budget(db)  # on a project
    refused = api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"resource_type": "deal"})
    assert refused.status == 400 and [d["field"] for d in refused.json["details"]] == ["resource_type"], refused.json
    both = api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"resource_type": "deal",
                                                                     "resource_id": budget.resource_id})
    assert both.status == 400 and [d["field"] for d in both.json["details"]] == ["resource_id"], both.json
