"""Session 29, code no test ran (coverage audit): the action centre's sprint that has no start date."""
from datetime import timedelta

from chalicelib.areas.sprints.models import Sprint
from chalicelib.core.timeutil import org_today
from tests.areas.projects.factories import make_project


def _sprint(db, project, name, start=None, end=None, status="active"):
    made = Sprint(project_id=project.id, name=name, start_date=start, end_date=end, status=status)
    db.add(made)
    db.flush()
    return made


def test_an_undated_sprint_is_shown_without_neighbours(api, db, employee):
    """A sprint without a start date has no place in its project's order by start date: no previous, no next,
    though its project has dated sprints on either side of today."""
    today = org_today()
    project = make_project(db, members=[employee])
    undated = _sprint(db, project, "Undated")
    _sprint(db, project, "Earlier", today - timedelta(days=30), today - timedelta(days=16), status="closed")
    _sprint(db, project, "Later", today + timedelta(days=10), today + timedelta(days=24), status="planned")
    centre = api.get("/api/action-items/centre", as_=employee)
    assert centre.status == 200, centre
    assert centre.json["current_sprint"]["id"] == undated.id  # the only active one
    assert centre.json["current_sprint"]["start_date"] is None
    assert centre.json["sprint_adjacent"] == {"previous": None, "next": None}
    chosen = api.get(f"/api/action-items/centre?sprint_id={undated.id}", as_=employee)
    assert chosen.status == 200, chosen
    assert chosen.json["current_sprint"]["id"] == undated.id
    assert chosen.json["sprint_adjacent"] == {"previous": None, "next": None}
