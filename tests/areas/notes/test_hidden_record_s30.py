"""Session 30 (audit: the same situation answered the same way). A note the caller may not read answers 404 "Note
not found" on edit and delete, like a missing note (docs/decisions/notes.md). A note whose visibility names the
caller's level, on a record the caller holds the tool of but whose row is out of their scope (another team's
project), answered "Project not found": a missing id answers "Note not found", so the answer told that the id was a
note and on what kind of record."""
import pytest

from tests.areas.projects.factories import make_project
from tests.factories import make_user

MISSING = "00000000-0000-0000-0000-000000000000"


def _note_on_a_hidden_project(api, db):
    executive = make_user(db, access_level="executive")
    employee = make_user(db, access_level="employee")  # projects:update by default, but no member of the project
    project = make_project(db, owner_id=executive.id)
    made = api.post(f"/api/notes/project/{project.id}", as_=executive,
                    json={"content": "Client is unhappy", "visibility": ["employee"]})
    assert made.status == 201, made
    assert api.get(f"/api/projects/{project.id}", as_=employee).status == 404  # the project is out of their scope
    return employee, made.json["id"]


@pytest.mark.parametrize("method, body", [("PUT", {"content": "x"}), ("DELETE", None)])
def test_a_note_on_a_project_out_of_scope_answers_as_a_missing_note(api, db, method, body):
    employee, note_id = _note_on_a_hidden_project(api, db)
    missing, hidden = (api.request(method, f"/api/notes/{id_}", as_=employee, json=body) for id_ in (MISSING, note_id))
    assert (hidden.status, hidden.json) == (missing.status, missing.json) == (404, {"error": "Note not found"})
