"""Session 23 (orphans audit): the notes of a deleted record go with it. Notes name their record by
`resource_type`/`resource_id` (no foreign key), and every notes route loads that record first: once it was deleted,
its notes answered 404 on every route, to their author and to executives alike, and stayed stored for good (notes on a
draft review among them). Each delete of a record type notes attach to now deletes its notes (and the records it
takes with it: a task's subtasks, a draft cycle's reviews) in one statement; a note on another record stays."""
import pytest
from sqlalchemy import func, select

from chalicelib.areas.notes.models import Note
from chalicelib.areas.portal.models import PortalSubmission
from tests.areas.announcements.factories import make_announcement
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.invoices.factories import make_invoice
from tests.areas.performance.factories import make_cycle, make_review
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 (the portal fixture)
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task


def _left(db, resource_type, resource_id) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(Note).where(Note.resource_type == resource_type,
                                                                  Note.resource_id == resource_id))


def _note(api, user, resource_type, resource_id, **body) -> str:
    made = api.post(f"/api/notes/{resource_type}/{resource_id}", as_=user, json={"content": "private remark", **body})
    assert made.status == 201, made
    return made.json["id"]


def _proposal(api, db, user):
    from tests.areas.proposals.factories import create

    return create(api, user)


# resource type -> (make the record: its id, the delete path)
RECORDS = {
    "task": (lambda api, db, user: make_task(db, created_by=user.id).id, "/api/tasks/{}"),
    "project": (lambda api, db, user: make_project(db).id, "/api/projects/{}"),
    "deal": (lambda api, db, user: make_deal(db).id, "/api/deals/deals/{}"),
    "company": (lambda api, db, user: make_company(db).id, "/api/deals/companies/{}"),
    "contact": (lambda api, db, user: make_contact(db).id, "/api/deals/contacts/{}"),
    "budget": (lambda api, db, user: make_budget(db).id, "/api/budgets/{}"),
    "invoice": (lambda api, db, user: make_invoice(db).id, "/api/invoices/{}"),
    "proposal": (_proposal, "/api/proposals/{}"),
    "announcement": (lambda api, db, user: make_announcement(db).id, "/api/announcements/{}"),
    "review": (lambda api, db, user: make_review(db, cycle=make_cycle(db), user=user).id,
               "/api/performance/reviews/{}"),
}


@pytest.mark.parametrize("resource_type", sorted(RECORDS))
def test_a_deleted_records_notes_go_with_it(api, db, exec_user, resource_type):
    make, path = RECORDS[resource_type]
    doomed, kept = make(api, db, exec_user), make(api, db, exec_user)
    first = _note(api, exec_user, resource_type, doomed)
    _note(api, exec_user, resource_type, doomed, parent_id=first)  # a reply
    _note(api, exec_user, resource_type, doomed, visibility=["manager"])
    stays = _note(api, exec_user, resource_type, kept)
    assert _left(db, resource_type, doomed) == 3
    deleted = api.delete(path.format(doomed), as_=exec_user)
    assert deleted.status == 200, deleted
    assert _left(db, resource_type, doomed) == 0, f"notes left on a deleted {resource_type}, reachable by no endpoint"
    # the other record's note is untouched, and still answers
    assert _left(db, resource_type, kept) == 1
    listed = api.get(f"/api/notes/{resource_type}/{kept}", as_=exec_user)
    assert listed.status == 200 and [n["id"] for n in listed.json["notes"]] == [stays]


def test_a_task_delete_takes_the_notes_of_its_subtasks_at_any_depth(api, db, exec_user):
    parent = make_task(db, created_by=exec_user.id)
    child = make_task(db, created_by=exec_user.id, parent_task_id=parent.id)
    grandchild = make_task(db, created_by=exec_user.id, parent_task_id=child.id)
    sibling = make_task(db, created_by=exec_user.id)
    ids = [parent.id, child.id, grandchild.id]
    for task_id in ids + [sibling.id]:
        _note(api, exec_user, "task", task_id)
    assert api.delete(f"/api/tasks/{parent.id}", as_=exec_user).status == 200
    assert [_left(db, "task", task_id) for task_id in ids] == [0, 0, 0]
    assert _left(db, "task", sibling.id) == 1


def test_a_draft_cycle_delete_takes_the_notes_of_its_reviews(api, db, exec_user, employee):
    cycle, other = make_cycle(db, status="draft"), make_cycle(db, status="draft")
    reviews = [make_review(db, cycle=cycle, user=employee), make_review(db, cycle=cycle, user=exec_user)]
    ids, kept = [review.id for review in reviews], make_review(db, cycle=other, user=employee).id
    for review_id in ids + [kept]:
        _note(api, exec_user, "review", review_id, content="Performance concern")
    assert api.delete(f"/api/performance/cycles/{cycle.id}", as_=exec_user).status == 200
    assert [_left(db, "review", review_id) for review_id in ids] == [0, 0]
    assert _left(db, "review", kept) == 1


def test_a_task_delete_costs_the_same_statements_whatever_its_notes_and_subtasks(api, db, exec_user, count_queries):
    counts = []
    for size in (1, 20):
        parent = make_task(db, created_by=exec_user.id)
        subtasks = [make_task(db, created_by=exec_user.id, parent_task_id=parent.id) for _ in range(size)]
        db.add_all([Note(resource_type="task", resource_id=task.id, author_id=exec_user.id, content="x",
                         visibility=["executive"], mentions=[]) for task in [parent, *subtasks] for _ in range(2)])
        db.flush()
        ids = [parent.id] + [task.id for task in subtasks]
        with count_queries() as counter:
            assert api.delete(f"/api/tasks/{parent.id}", as_=exec_user).status == 200
        counts.append(counter.count)
        db.expire_all()
        assert db.scalar(select(func.count()).select_from(Note).where(Note.resource_id.in_(ids))) == 0
        db.refresh(exec_user)
    assert counts[0] == counts[1], counts


# ---------------------------------------------------------------- who submitted a record through the portal

def _submissions(db, record_type, record_id) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(PortalSubmission).where(
        PortalSubmission.record_type == record_type, PortalSubmission.record_id == record_id))


def test_portal_submissions_go_with_their_task_and_their_notes(api, db, exec_user, portal):  # noqa: F811
    client = make_client(db)
    project, other = make_project(db, company_id=client.id), make_project(db, company_id=client.id)
    note = portal.post("/notes", client, role="collaborator", user="pu-1",
                       json={"resourceType": "project", "resourceId": project.id, "content": "Looks good"})
    kept_note = portal.post("/notes", client, role="collaborator", user="pu-1",
                            json={"resourceType": "project", "resourceId": other.id, "content": "Fine"})
    request = portal.post("/requests", client, role="collaborator", user="pu-1",
                          json={"title": "Checkout broken", "projectId": other.id})
    kept_request = portal.post("/requests", client, role="collaborator", user="pu-1",
                               json={"title": "Typo", "projectId": other.id})
    assert {note.status, kept_note.status, request.status, kept_request.status} == {201}
    assert _submissions(db, "note", note.json["id"]) == 1
    assert api.delete(f"/api/projects/{project.id}", as_=exec_user).status == 200
    assert _submissions(db, "note", note.json["id"]) == 0
    task_id = request.json["taskId"]
    assert _submissions(db, "task", task_id) == 1
    assert api.delete(f"/api/tasks/{task_id}", as_=exec_user).status == 200
    assert _submissions(db, "task", task_id) == 0
    assert _submissions(db, "task", kept_request.json["taskId"]) == 1
    assert _submissions(db, "note", kept_note.json["id"]) == 1


def test_a_deleted_portal_note_forgets_its_submitter_and_its_replies(api, db, exec_user, portal):  # noqa: F811
    client = make_client(db)
    project = make_project(db, company_id=client.id)
    note = portal.post("/notes", client, role="collaborator", user="pu-1",
                       json={"resourceType": "project", "resourceId": project.id, "content": "Looks good"})
    reply = portal.post("/notes", client, role="collaborator", user="pu-2", json={
        "resourceType": "project", "resourceId": project.id, "content": "Agreed", "parentId": note.json["id"]})
    kept = portal.post("/notes", client, role="collaborator", user="pu-1",
                       json={"resourceType": "project", "resourceId": project.id, "content": "Another"})
    assert {note.status, reply.status, kept.status} == {201}, (note, reply, kept)
    assert api.delete(f"/api/notes/{note.json['id']}", as_=exec_user).status == 200
    assert _submissions(db, "note", note.json["id"]) == 0
    assert _submissions(db, "note", reply.json["id"]) == 0
    assert _submissions(db, "note", kept.json["id"]) == 1
