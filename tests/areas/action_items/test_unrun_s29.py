"""Session 29 (code no test runs): the action items area's branch the whole suite left unexecuted. An item's
assignee cannot be cleared: `assigned_to: null` in an update is a 400 naming the field, nothing written."""


from chalicelib.areas.action_items.models import ActionItem
from tests.areas.action_items.factories import make_action_item


def test_an_items_assignee_cannot_be_nulled(api, db, employee):
    item = make_action_item(db, assigned_to=employee.id, created_by=employee.id)
    answer = api.patch(f"/api/action-items/{item.id}", as_=employee, json={"assigned_to": None, "title": "Renamed"})
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": "assigned_to", "message": "may not be null"}], answer.json
    db.expire_all()
    stored = db.get(ActionItem, item.id)
    assert stored.assigned_to == employee.id and stored.title != "Renamed"
