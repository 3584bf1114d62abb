"""The tasks list's `squad` filter names a squad in any letter case (session 32, 2026-11-29; "labels" audit): squad
names are unique ignoring case (admin; index `uq_squads_name_lower`) and the projects list's `squad` filter and a
project's squad compare them so (docs/decisions/projects.md), but `?squad=red` listed none of squad "Red"'s tasks.
docs/decisions/tasks.md, List."""
from tests.areas.tasks.factories import make_task
from tests.factories import make_squad, make_user


def _ids(response):
    assert response.status == 200, response
    return {task["id"] for task in response.json["tasks"]}


def test_a_squad_named_in_another_case_filters_its_tasks(api, db, exec_user):
    red, blue = make_squad(db, name="Red"), make_squad(db, name="Blue Team")
    tr = make_task(db, assignee_id=make_user(db, squad_id=red.id).id)
    tb = make_task(db, assignee_id=make_user(db, squad_id=blue.id).id)
    assert _ids(api.get("/api/tasks?squad=red", as_=exec_user)) == {tr.id}
    assert _ids(api.get("/api/tasks?squad=RED,blue%20team", as_=exec_user)) == {tr.id, tb.id}
    assert _ids(api.get(f"/api/tasks?squad={red.id}", as_=exec_user)) == {tr.id}  # an id still names it


def test_a_squad_named_in_the_other_unicode_form_filters_its_tasks(api, db, exec_user):
    """Squad names are stored composed (admin, session 32): the filter names one decomposed too."""
    crea = make_squad(db, name="Cr\u00e9a")
    task = make_task(db, assignee_id=make_user(db, squad_id=crea.id).id)
    assert _ids(api.get("/api/tasks?squad=cre%CC%81a", as_=exec_user)) == {task.id}
