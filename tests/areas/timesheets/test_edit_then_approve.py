"""Editor is not approver (docs/decisions/timesheets.md): a manager who changed a team member's time entry does not
approve it too; the owner changing it again, another approver or an executive does."""
import pytest

from tests.areas.timesheets.factories import make_entry
from tests.factories import make_squad, make_user


@pytest.fixture
def team(db):
    manager = make_user(db, access_level="manager", name="Mia Manager")
    squad = make_squad(db, manager_id=manager.id)
    member = make_user(db, name="Sam Member", squad_id=squad.id)
    head = make_user(db, access_level="head")
    executive = make_user(db, access_level="executive")
    return type("Team", (), dict(manager=manager, member=member, head=head, executive=executive))


def _submitted(api, db, team, **edit):
    """An entry the member logged, changed by `edit.as_` with `edit.json`, then submitted by the member."""
    entry = make_entry(db, team.member, created_by=team.member.id)
    editor, body = edit.get("as_"), edit.get("json")
    if editor is not None:
        changed = api.put(f"/api/time-entries/{entry.id}", as_=editor, json=body)
        assert changed.status == 200, changed
    submitted = api.post(f"/api/time-entries/{entry.id}/submit", as_=team.member)
    assert submitted.status == 200, submitted
    return entry.id


def test_a_manager_who_changed_the_hours_does_not_approve_them(api, db, team):
    entry_id = _submitted(api, db, team, as_=team.manager, json={"hours": 9})
    assert api.get(f"/api/time-entries/{entry_id}", as_=team.member).json["time_entry"]["updated_by"] == team.manager.id
    refused = api.post(f"/api/time-entries/{entry_id}/approve", as_=team.manager)
    assert refused.status == 403, refused
    assert "changed" in refused.json["error"]
    assert api.get(f"/api/time-entries/{entry_id}", as_=team.manager).json["time_entry"]["status"] == "submitted"
    approved = api.post(f"/api/time-entries/{entry_id}/approve", as_=team.head)  # another approver decides
    assert approved.status == 200, approved
    assert approved.json["time_entry"]["approved_by"] == team.head.id


def test_the_owner_changing_it_again_makes_it_theirs(api, db, team):
    entry = make_entry(db, team.member, created_by=team.member.id)
    assert api.put(f"/api/time-entries/{entry.id}", as_=team.manager, json={"hours": 9}).status == 200
    assert api.put(f"/api/time-entries/{entry.id}", as_=team.member, json={"hours": 8}).status == 200
    assert api.post(f"/api/time-entries/{entry.id}/submit", as_=team.member).status == 200
    assert api.post(f"/api/time-entries/{entry.id}/approve", as_=team.manager).status == 200


def test_a_put_that_changes_nothing_and_a_submit_do_not_count(api, db, team):
    entry = make_entry(db, team.member, created_by=team.member.id)
    same = api.put(f"/api/time-entries/{entry.id}", as_=team.manager, json={"hours": float(entry.hours)})
    assert same.status == 200, same
    assert api.put(f"/api/time-entries/{entry.id}", as_=team.manager, json={"status": "submitted"}).status == 200
    assert api.post(f"/api/time-entries/{entry.id}/approve", as_=team.manager).status == 200


def test_a_rejected_entry_corrected_by_the_manager(api, db, team):
    """Rejected, then corrected and resubmitted by the manager: someone else approves it."""
    entry = make_entry(db, team.member, created_by=team.member.id, status="submitted")
    assert api.post(f"/api/time-entries/{entry.id}/reject", as_=team.manager, json={"reason": "too many"}).status == 200
    fixed = api.put(f"/api/time-entries/{entry.id}", as_=team.manager,
                    json={"description": "Corrected", "status": "submitted"})
    assert fixed.status == 200, fixed
    assert api.post(f"/api/time-entries/{entry.id}/approve", as_=team.manager).status == 403
    assert api.post(f"/api/time-entries/{entry.id}/approve", as_=team.executive).status == 200


def test_an_executive_approves_what_they_changed(api, db, team):
    entry_id = _submitted(api, db, team, as_=team.executive, json={"hours": 4})
    assert api.post(f"/api/time-entries/{entry_id}/approve", as_=team.executive).status == 200
