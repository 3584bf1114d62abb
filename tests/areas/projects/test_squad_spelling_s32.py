"""A project's squad named in another letter case (session 32, "the same thing written two ways" audit).

Squad names are unique case-insensitively (admin; the index `uq_squads_name_lower`), so "rockets" names the squad
"Rockets" and no other. The project's check matched the name exactly: a project naming "rockets" was refused (400,
"no squad has this name") for a squad that exists, and the list's `squad` filter in another case found nothing. Now
the squad is found ignoring case and the project keeps the squad's own spelling, which the squad's manager's scope,
a rename and a delete match (exactly, as before)."""
from tests.factories import make_squad, make_user

from .factories import make_project


def names(response):
    assert response.status == 200, response
    return sorted(project["name"] for project in response.json["projects"])


def test_a_squad_named_in_another_case_is_the_squad_and_kept_in_its_spelling(api, db):
    manager = make_user(db, access_level="manager", name="Squad manager")
    make_squad(db, name="Rockets", manager_id=manager.id)
    boss = make_user(db, access_level="executive", name="Boss")
    made = api.post("/api/projects", as_=boss, json={"name": "Launch", "squad": "rockets", "owner_id": boss.id})
    assert made.status == 201, made.json
    project = made.json["project"]
    assert project["squad"] == "Rockets"  # the squad's spelling: its manager's scope and a rename match it
    assert names(api.get("/api/projects", as_=manager)) == ["Launch"]

    changed = api.put(f"/api/projects/{project['id']}", as_=boss, json={"squad": "  ROCKETS "})
    assert changed.status == 200, changed.json
    assert changed.json["project"]["squad"] == "Rockets"
    assert api.put(f"/api/projects/{project['id']}", as_=boss, json={"squad": "Rocket"}).status == 400


def test_the_squad_filter_ignores_case_as_squad_names_do(api, db):
    boss = make_user(db, access_level="executive", name="Boss")
    make_project(db, name="A", squad="Rockets")
    make_project(db, name="B", squad="Comets")
    assert names(api.get("/api/projects?squad=rockets", as_=boss)) == ["A"]
    assert names(api.get("/api/projects?squad=ROCKETS,comets", as_=boss)) == ["A", "B"]


def test_a_squad_named_in_the_other_unicode_form_is_the_squad(api, db):
    """Squad names are stored composed (admin, session 32); a project naming the squad with its accent decomposed
    is that squad (the review of session 32: a 400 "no squad has this name")."""
    make_squad(db, name="Cr\u00e9a")
    boss = make_user(db, access_level="executive", name="Boss")
    made = api.post("/api/projects", as_=boss, json={"name": "Launch", "squad": "cre\u0301a", "owner_id": boss.id})
    assert made.status == 201, made.json
    assert made.json["project"]["squad"] == "Cr\u00e9a"


def test_the_squad_filter_reads_the_other_unicode_form(api, db):
    """As a project's write and the tasks filter (the second review of session 32: the projects list's filter compared
    the name as typed)."""
    boss = make_user(db, access_level="executive", name="Boss")
    make_project(db, name="A", squad="Cr\u00e9a")
    assert names(api.get("/api/projects?squad=cr%C3%A9a", as_=boss)) == ["A"]
    assert names(api.get("/api/projects?squad=cre%CC%81a", as_=boss)) == ["A"]
