"""Session 28 (audit: fields a reader should not see). A `mention` notice carries the note's first 500 characters
only to a mentioned user who may read the note. Once the author narrows the note's visibility, or deletes it (or its
thread, or its record), the note answers 404 to that user: the notice no longer carries its text (narrowed: the body
is nulled, the link kept; deleted: the notice goes, as the portal's `portal_note_reply` since session 24)."""
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def _mention_bodies(api, user) -> list:
    notices = api.get("/api/notifications", as_=user).json["notifications"]
    return [n["body"] for n in notices if n["type"] == "mention"]


def _mention(api, author, resource_type, resource_id, content, mentioned, **body) -> str:
    made = api.post(f"/api/notes/{resource_type}/{resource_id}", as_=author,
                    json={"content": content, "mentions": [user.id for user in mentioned], **body})
    assert made.status == 201, made
    return made.json["id"]


def _project_with(db, owner, *members):
    return make_project(db, owner_id=owner.id, members=members)


def test_a_narrowed_notes_mention_notice_no_longer_carries_its_text(api, db):
    executive = make_user(db, access_level="executive")
    employee = make_user(db, access_level="employee")
    project = _project_with(db, executive, employee)
    note_id = _mention(api, executive, "project", project.id, "Client is late paying; we may drop them", [employee])
    assert _mention_bodies(api, employee) == ["Client is late paying; we may drop them"]
    narrowed = api.put(f"/api/notes/{note_id}", as_=executive,
                       json={"content": "Client is late paying; we may drop them", "visibility": ["executive"]})
    assert narrowed.status == 200, narrowed
    assert api.put(f"/api/notes/{note_id}", as_=employee, json={"content": "x"}).status == 404  # unreadable now
    notices = [n for n in api.get("/api/notifications", as_=employee).json["notifications"] if n["type"] == "mention"]
    assert [n["body"] for n in notices] == [None]
    assert notices[0]["action_url"] == f"/projects/{project.id}#note-{note_id}"  # the record's page still opens


def test_a_narrowed_note_keeps_its_text_for_the_mentioned_users_who_still_read_it(api, db):
    executive = make_user(db, access_level="executive")
    employee, manager = make_user(db, access_level="employee"), make_user(db, access_level="manager")
    project = _project_with(db, executive, employee, manager)
    note_id = _mention(api, executive, "project", project.id, "Renewal at risk", [employee, manager])
    narrowed = api.put(f"/api/notes/{note_id}", as_=executive,
                       json={"content": "Renewal at risk", "visibility": ["manager"]})
    assert narrowed.status == 200, narrowed
    assert _mention_bodies(api, manager) == ["Renewal at risk"]
    assert _mention_bodies(api, employee) == [None]


def test_a_deleted_notes_mention_notice_is_withdrawn(api, db):
    executive = make_user(db, access_level="executive")
    employee = make_user(db, access_level="employee")
    project = _project_with(db, executive, employee)
    note_id = _mention(api, executive, "project", project.id, "Posted by mistake: Bob's salary is 180k", [employee])
    assert len(_mention_bodies(api, employee)) == 1
    assert api.delete(f"/api/notes/{note_id}", as_=executive).status == 200
    assert _mention_bodies(api, employee) == []


def test_deleting_a_note_withdraws_the_mention_notices_of_its_replies_only(api, db):
    executive = make_user(db, access_level="executive")
    employee, manager = make_user(db, access_level="employee"), make_user(db, access_level="manager")
    project = _project_with(db, executive, employee, manager)
    first = _mention(api, executive, "project", project.id, "Thread start", [])
    _mention(api, executive, "project", project.id, "Reply naming a salary", [employee], parent_id=first)
    _mention(api, executive, "project", project.id, "Another note", [manager])
    assert api.delete(f"/api/notes/{first}", as_=executive).status == 200
    assert _mention_bodies(api, employee) == []
    assert _mention_bodies(api, manager) == ["Another note"]


def test_a_deleted_records_mention_notices_are_withdrawn(api, db):
    executive = make_user(db, access_level="executive")
    employee = make_user(db, access_level="employee")
    doomed = make_task(db, created_by=executive.id, assignee_id=employee.id)
    kept = make_task(db, created_by=executive.id, assignee_id=employee.id)
    _mention(api, executive, "task", doomed.id, "On the doomed task", [employee])
    _mention(api, executive, "task", kept.id, "On the kept task", [employee])
    assert api.delete(f"/api/tasks/{doomed.id}", as_=executive).status == 200
    assert _mention_bodies(api, employee) == ["On the kept task"]


def test_an_edited_notes_mention_notice_keeps_the_text_it_was_sent_with(api, db):
    """A content edit leaves the notices as they were sent (as an e-mail already sent): the reader still reads the
    note, edited (docs/decisions/notes.md, session 28)."""
    executive = make_user(db, access_level="executive")
    employee = make_user(db, access_level="employee")
    project = _project_with(db, executive, employee)
    note_id = _mention(api, executive, "project", project.id, "First wording", [employee])
    assert api.put(f"/api/notes/{note_id}", as_=executive, json={"content": "Second wording"}).status == 200
    assert _mention_bodies(api, employee) == ["First wording"]
