"""Dates of sprints in the action centre: the current sprint is the active one that began most recently (today in
ORG_TIMEZONE counts as begun; one starting tomorrow has not), and sprints starting on the same day are each
other's neighbours."""
from datetime import timedelta

from chalicelib.areas.sprints.models import Sprint
from chalicelib.core.timeutil import org_today
from tests.areas.projects.factories import make_project


def _sprint(db, project, name, start, status="active", end=None):
    made = Sprint(project_id=project.id, name=name, start_date=start, end_date=end, status=status)
    db.add(made)
    db.flush()
    return made


def test_the_current_sprint_has_begun(api, db, employee):
    today = org_today()
    ours = make_project(db, members=[employee])
    running = _sprint(db, ours, "Running", today, end=today + timedelta(days=13))
    # marked active early, in another of the employee's projects: it starts tomorrow
    _sprint(db, make_project(db, owner_id=employee.id), "Next", today + timedelta(days=1))
    centre = api.get("/api/action-items/centre", as_=employee)
    assert centre.status == 200, centre
    assert centre.json["current_sprint"]["id"] == running.id


def test_only_future_active_sprints_still_give_one(api, db, employee):
    today = org_today()
    project = make_project(db, members=[employee])
    soon = _sprint(db, project, "Soon", today + timedelta(days=3))
    _sprint(db, project, "Later", today + timedelta(days=17))
    assert api.get("/api/action-items/centre", as_=employee).json["current_sprint"]["id"] == soon.id


def test_sprints_starting_on_the_same_day_are_neighbours(api, db, employee):
    project = make_project(db, members=[employee])
    day = org_today() - timedelta(days=30)
    before = _sprint(db, project, "Before", day - timedelta(days=14), status="closed")
    first = _sprint(db, project, "Design", day, status="closed")
    second = _sprint(db, project, "Build", day, status="closed")
    after = _sprint(db, project, "After", day + timedelta(days=14), status="closed")
    one = api.get(f"/api/action-items/centre?sprint_id={first.id}", as_=employee).json["sprint_adjacent"]
    two = api.get(f"/api/action-items/centre?sprint_id={second.id}", as_=employee).json["sprint_adjacent"]
    assert one == {"previous": {"id": before.id, "name": "Before"}, "next": {"id": second.id, "name": "Build"}}
    assert two == {"previous": {"id": first.id, "name": "Design"}, "next": {"id": after.id, "name": "After"}}
