"""The action centre's current sprint (session 28): the active sprint whose dates contain today (ORG_TIMEZONE) is
current, over an active sprint that began later but has already ended."""
from datetime import timedelta

from chalicelib.areas.sprints.models import Sprint
from chalicelib.core.timeutil import org_today
from tests.areas.projects.factories import make_project


def _active_sprint(db, project, name, start, end):
    made = Sprint(project_id=project.id, name=name, start_date=start, end_date=end, status="active")
    db.add(made)
    db.flush()
    return made


def test_a_running_sprint_is_current_over_a_later_one_that_has_ended(api, db, employee):
    today = org_today()
    project = make_project(db, members=[employee])
    # ends today: the last day still counts as running
    running = _active_sprint(db, project, "Running", today - timedelta(days=20), today)
    # began later, ended yesterday, never closed
    _active_sprint(db, make_project(db, owner_id=employee.id), "Ended", today - timedelta(days=10),
                   today - timedelta(days=1))
    centre = api.get("/api/action-items/centre", as_=employee)
    assert centre.status == 200, centre
    assert centre.json["current_sprint"]["id"] == running.id


def test_an_ended_active_sprint_is_current_when_none_is_running(api, db, employee):
    today = org_today()
    project = make_project(db, members=[employee])
    ended = _active_sprint(db, project, "Ended", today - timedelta(days=20), today - timedelta(days=6))
    _active_sprint(db, project, "Ended earlier", today - timedelta(days=40), today - timedelta(days=21))
    _active_sprint(db, project, "Upcoming", today + timedelta(days=1), today + timedelta(days=14))
    centre = api.get("/api/action-items/centre", as_=employee)
    assert centre.status == 200, centre
    assert centre.json["current_sprint"]["id"] == ended.id
