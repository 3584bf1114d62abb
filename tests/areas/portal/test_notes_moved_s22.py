"""Session 22 (stale authorization audit): a project moved to another client no longer shows the first client's
notes to the new client. A client's note is listed only to the company (group) that wrote it; a staff note shown to
clients only to the company the record belonged to when staff shared it."""
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project


def _contents(portal, company, **kw):
    answer = portal.get("/notes", company, **kw)
    assert answer.status == 200, answer
    return [n["content"] for n in answer.json["notes"]]


def test_a_moved_project_keeps_the_first_clients_notes_from_the_new_client(portal, db, api, exec_user):
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    body = {"resourceType": "project", "resourceId": project.id, "content": "CONFIDENTIAL: budget cut by 40%"}
    made = portal.post("/notes", first, role="collaborator", user="pu-first", json=body)
    assert made.status == 201, made
    anonymous = portal.post("/notes", first, role="collaborator", user=None, json={**body, "content": "no user id"})
    assert anonymous.status == 201, anonymous
    base = f"/api/notes/project/{project.id}"
    staff = api.post(base, as_=exec_user, json={"content": "Sorry to hear: we scale down", "parent_id": made.json["id"],
                                                 "visibility": ["client"]})
    assert staff.status == 201, staff
    assert sorted(_contents(portal, first)) == sorted(["CONFIDENTIAL: budget cut by 40%", "no user id",
                                                       "Sorry to hear: we scale down"])
    moved = api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": second.id})
    assert moved.status == 200, moved
    assert _contents(portal, first) == []  # the project is no longer the first client's
    assert _contents(portal, second, user="pu-second") == []  # was: the first client's words and the reply
    # written for the new client, while the project is theirs: listed
    after = api.post(base, as_=exec_user, json={"content": "Welcome aboard", "visibility": ["client"]})
    assert after.status == 201
    theirs = portal.post("/notes", second, role="collaborator", user="pu-second", json={**body, "content": "Hi"})
    assert theirs.status == 201
    assert sorted(_contents(portal, second, user="pu-second")) == ["Hi", "Welcome aboard"]
    # moved back: the first client reads its own notes again, not the second's
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": first.id}).status == 200
    assert sorted(_contents(portal, first)) == sorted(["CONFIDENTIAL: budget cut by 40%", "no user id",
                                                       "Sorry to hear: we scale down"])


def test_a_staff_note_shared_later_follows_the_company_of_that_time(portal, db, api, exec_user):
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    base = f"/api/notes/project/{project.id}"
    note = api.post(base, as_=exec_user, json={"content": "internal at first", "visibility": ["executive"]}).json["id"]
    project.company_id = second.id  # moved (directly: no history of the move is needed)
    db.flush()
    assert _contents(portal, second) == []
    assert api.put(f"/api/notes/{note}", as_=exec_user,
                   json={"content": "now for the client", "visibility": ["client"]}).status == 200
    assert _contents(portal, second) == ["now for the client"]
    project.company_id = first.id
    db.flush()
    assert _contents(portal, first) == []


def test_group_sister_reads_the_groups_notes(portal, db):
    mine, sister = make_client(db, group="acme"), make_client(db, group="acme")
    project = make_project(db, company_id=sister.id)
    body = {"resourceType": "project", "resourceId": project.id, "content": "from the sister"}
    assert portal.post("/notes", sister, role="collaborator", json=body).status == 201
    assert _contents(portal, mine, group=[sister]) == ["from the sister"]
    assert _contents(portal, mine) == []


def test_a_staff_note_shared_while_the_record_had_no_client_follows_the_record(portal, db, api, exec_user):
    """Shared while the project had no company (no client saw it then), the note was recorded for no company and was
    hidden for good once the project got its client (session 22's review). It follows its record, as a note shared
    before session 22."""
    client = make_client(db)
    project = make_project(db, company_id=None)
    made = api.post(f"/api/notes/project/{project.id}", as_=exec_user,
                    json={"content": "Kick-off on Monday", "visibility": ["client"]})
    assert made.status == 201, made
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": client.id}).status == 200
    assert _contents(portal, client) == ["Kick-off on Monday"]
