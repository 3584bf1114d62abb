"""Session 22 (growth audit): a record holds at most 500 notes (409 beyond), its notes list is a paged list cut to
what a Lambda answer carries, and mention recipients are counted against an hourly allowance per sender."""
from sqlalchemy import func, select

from chalicelib.areas.notes.models import Note
from chalicelib.core.notify import Notification
from tests.areas.projects.factories import make_project
from tests.factories import make_user

LEVELS = ["employee", "lead", "manager", "head", "executive"]


def _many(db, project, author, n, content=lambda i: f"n{i}"):
    db.add_all([Note(resource_type="project", resource_id=project.id, author_id=author.id, content=content(i),
                     visibility=LEVELS, mentions=[]) for i in range(n)])
    db.flush()


def test_a_record_holds_at_most_500_notes(api, db, employee):
    project = make_project(db, owner_id=employee.id)
    path = f"/api/notes/project/{project.id}"
    _many(db, project, employee, 499)
    last = api.post(path, as_=employee, json={"content": "the 500th"})
    assert last.status == 201, last
    refused = api.post(path, as_=employee, json={"content": "one more"})
    assert refused.status == 409 and "500" in refused.json["error"], refused
    reply = api.post(path, as_=employee, json={"content": "a reply", "parent_id": last.json["id"]})
    assert reply.status == 409, reply  # replies are notes of the record too
    assert db.scalar(select(func.count()).select_from(Note).where(Note.resource_id == project.id)) == 500
    # deleting one makes room again
    assert api.delete(f"/api/notes/{last.json['id']}", as_=employee).status == 200
    assert api.post(path, as_=employee, json={"content": "again"}).status == 201


def test_the_list_is_paged_newest_first(api, db, employee, exec_user):
    project = make_project(db, owner_id=employee.id)
    path = f"/api/notes/project/{project.id}"
    made = [api.post(path, as_=employee, json={"content": f"note {i}"}).json["id"] for i in range(5)]
    answer = api.get(path, as_=exec_user)
    assert answer.status == 200, answer
    assert set(answer.json) == {"notes", "total", "total_exact", "limit", "offset"}
    assert [n["id"] for n in answer.json["notes"]] == made[::-1]
    assert (answer.json["total"], answer.json["total_exact"], answer.json["limit"], answer.json["offset"]) == (
        5, 1, 500, 0)
    second = api.get(f"{path}?limit=2&offset=2", as_=exec_user)
    assert [n["id"] for n in second.json["notes"]] == made[::-1][2:4] and second.json["total"] == 5
    assert api.get(f"{path}?limit=501", as_=exec_user).status == 400
    reply = api.post(path, as_=employee, json={"content": "a reply", "parent_id": made[0]}).json["id"]
    listed = {n["id"]: n for n in api.get(path, as_=exec_user).json["notes"]}
    assert listed[reply]["parent_id"] == made[0]  # replies are listed as before, each a note of the page


def test_long_notes_are_cut_to_a_page_that_fits(api, db, employee, exec_user):
    project = make_project(db, owner_id=employee.id)
    path = f"/api/notes/project/{project.id}"
    _many(db, project, employee, 55, content=lambda i: "é" * 19990 + f"{i:010d}")
    first = api.get(path, as_=exec_user)
    assert first.status == 200, first  # was 413 for every reader
    assert first.json["total"] == 55 and first.json["total_exact"] == 1
    assert 0 < first.json["limit"] == len(first.json["notes"]) < 55
    seen, offset = [], 0
    while offset < 55:
        page = api.get(f"{path}?offset={offset}", as_=exec_user)
        assert page.status == 200, page
        seen += [n["content"][-10:] for n in page.json["notes"]]
        offset += page.json["limit"]
    assert len(seen) == 55 and len(set(seen)) == 55


def test_mention_recipients_are_counted_per_sender_an_hour(api, db, employee):
    project = make_project(db, owner_id=employee.id)
    path = f"/api/notes/project/{project.id}"
    ids = [make_user(db, access_level="employee", name=f"U{i}").id for i in range(100)]
    for i in range(3):  # 300 recipients an hour
        made = api.post(path, as_=employee, json={"content": f"ping {i}", "mentions": ids})
        assert made.status == 201, made
    notes_before = db.scalar(select(func.count()).select_from(Note))
    refused = api.post(path, as_=employee, json={"content": "ping 4", "mentions": ids[:1]})
    assert refused.status == 429, refused
    assert refused.json["retry_after"] >= 1 and "300" in refused.json["error"]
    assert db.scalar(select(func.count()).select_from(Note)) == notes_before  # nothing written
    told = db.scalar(select(func.count()).select_from(Notification).where(Notification.type == "mention"))
    assert told == 300
    # a note without mentions, or mentioning only its author, is not counted
    assert api.post(path, as_=employee, json={"content": "plain"}).status == 201
    assert api.post(path, as_=employee, json={"content": "me", "mentions": [employee.id]}).status == 201
    # another sender has an allowance of their own
    other = make_user(db, access_level="employee")
    from tests.factories import grant

    grant(db, other, "projects", "view")
    project2 = make_project(db, owner_id=other.id)
    assert api.post(f"/api/notes/project/{project2.id}", as_=other,
                    json={"content": "hi", "mentions": ids}).status == 201


def test_a_note_that_would_pass_the_allowance_is_refused_whole(api, db, employee):
    project = make_project(db, owner_id=employee.id)
    path = f"/api/notes/project/{project.id}"
    ids = [make_user(db, access_level="employee").id for _ in range(100)]
    for i in range(2):
        assert api.post(path, as_=employee, json={"content": f"p{i}", "mentions": ids}).status == 201
    assert api.post(path, as_=employee, json={"content": "p", "mentions": ids[:60]}).status == 201  # 260
    refused = api.post(path, as_=employee, json={"content": "too many", "mentions": ids[:41]})  # 301
    assert refused.status == 429, refused
    assert api.post(path, as_=employee, json={"content": "fits", "mentions": ids[:40]}).status == 201  # 300
