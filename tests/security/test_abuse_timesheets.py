"""Business-rule abuse in timesheets (security audit S5): approving time one logged oneself.

A manager (timesheets:update by default) may log time for a team member and approves the team's entries, but
never their own. Logging an entry for a member (status `submitted` on create) and approving it made one person
both the author and the approver of billable hours (time-and-materials invoices bill approved entries): the
four-eyes rule that keeps a manager from approving their own time was bypassed by naming someone else."""
from tests.factories import make_squad, make_user


def test_a_manager_cannot_approve_time_they_logged_for_a_team_member(api, db):
    manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=manager.id)
    member = make_user(db, squad_id=squad.id)
    head = make_user(db, access_level="head")
    made = api.post("/api/time-entries", as_=manager,
                    json={"user_id": member.id, "date": "2026-03-02", "hours": 24, "status": "submitted"})
    assert made.status == 201, made
    path = f"/api/time-entries/{made.json['time_entry']['id']}"
    approved = api.post(f"{path}/approve", as_=manager)
    assert approved.status == 403, approved
    assert api.get(path, as_=manager).json["time_entry"]["status"] == "submitted"
    # someone else decides it
    assert api.post(f"{path}/approve", as_=head).status == 200


def test_a_manager_still_approves_time_the_member_logged(api, db):
    manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=manager.id)
    member = make_user(db, squad_id=squad.id)
    made = api.post("/api/time-entries", as_=member, json={"date": "2026-03-02", "hours": 3, "status": "submitted"})
    path = f"/api/time-entries/{made.json['time_entry']['id']}"
    assert api.post(f"{path}/approve", as_=manager).status == 200
