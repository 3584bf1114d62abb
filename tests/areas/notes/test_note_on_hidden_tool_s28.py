"""Session 28 (audit: fields a reader should not see). A note the caller may not read answers 404 on edit and delete,
like a missing one (docs/decisions/notes.md). A note whose visibility names the caller's level, on a record of a tool
the caller holds no view of, answered 403 naming the tool: it confirmed that the note exists and what it is on."""
from tests.areas.budgets.factories import make_budget
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user

MISSING = "00000000-0000-0000-0000-000000000000"


def _budget_note(api, db):
    executive = make_user(db, access_level="executive")
    employee = make_user(db, access_level="employee")
    grant(db, employee, "budgets", "none")
    budget = make_budget(db, resource_id=make_project(db, owner_id=executive.id).id)
    made = api.post(f"/api/notes/budget/{budget.id}", as_=executive, json={"content": "Margin is 4%"})
    assert made.status == 201, made
    return employee, made.json["id"]


def test_editing_a_note_on_a_record_one_cannot_see_answers_as_a_missing_note(api, db):
    employee, note_id = _budget_note(api, db)
    missing = api.put(f"/api/notes/{MISSING}", as_=employee, json={"content": "x"})
    hidden = api.put(f"/api/notes/{note_id}", as_=employee, json={"content": "x"})
    assert (hidden.status, hidden.json) == (missing.status, missing.json) == (404, {"error": "Note not found"})


def test_deleting_a_note_on_a_record_one_cannot_see_answers_as_a_missing_note(api, db):
    employee, note_id = _budget_note(api, db)
    missing = api.delete(f"/api/notes/{MISSING}", as_=employee)
    hidden = api.delete(f"/api/notes/{note_id}", as_=employee)
    assert (hidden.status, hidden.json) == (missing.status, missing.json) == (404, {"error": "Note not found"})
