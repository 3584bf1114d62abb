"""Notes at /api/notes (view permission of the tool that owns the resource type)."""
import pytest
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.announcements.factories import make_announcement
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import grant, make_user


def _notes(api, user, path):
    answer = api.get(f"/api/notes/{path}", as_=user)
    assert answer.status == 200, answer
    return answer.json["notes"]


@pytest.mark.smoke
def test_create_list_edit_delete_on_a_project(api, db, employee, exec_user):
    project = make_project(db, owner_id=employee.id)
    path = f"project/{project.id}"
    first = api.post(f"/api/notes/{path}", as_=employee, json={"content": " First "})
    assert first.status == 201 and set(first.json) == {"id"}, first
    second = api.post(f"/api/notes/{path}", as_=employee, json={"content": "Second", "visibility": ["employee"]})
    notes = _notes(api, employee, path)
    assert [n["id"] for n in notes] == [second.json["id"], first.json["id"]]  # newest first
    newest, oldest = notes
    assert oldest["content"] == "First" and oldest["visibility"] == ["employee", "lead", "manager", "head", "executive"]
    assert newest["visibility"] == ["employee", "executive"]  # executive always added
    assert (newest["author_id"], newest["author_name"], newest["resource_type"], newest["resource_id"]) == (
        employee.id, employee.name, "project", project.id)
    assert newest["mentions"] == [] and newest["parent_id"] is None

    edit = api.put(f"/api/notes/{first.json['id']}", as_=employee, json={"content": "Edited", "visibility": ["head"]})
    assert edit.json == {"ok": True}
    edited = next(n for n in _notes(api, exec_user, path) if n["id"] == first.json["id"])
    assert edited["content"] == "Edited" and edited["visibility"] == ["head", "executive"]
    assert api.put(f"/api/notes/{first.json['id']}", as_=employee, json={"content": "  "}).status == 400
    assert api.put(f"/api/notes/{first.json['id']}", as_=employee, json={"visibility": ["head"]}).status == 400
    assert api.delete(f"/api/notes/{first.json['id']}", as_=employee).json == {"ok": True}
    assert [n["id"] for n in _notes(api, employee, path)] == [second.json["id"]]
    assert api.delete(f"/api/notes/{first.json['id']}", as_=employee).status == 404


def test_resource_types_and_existence(api, db, employee, exec_user):
    for resource_type, record in (("deal", make_deal(db)), ("company", make_company(db)),
                                  ("contact", make_contact(db)), ("task", make_task(db, created_by=employee.id)),
                                  ("announcement", make_announcement(db))):
        made = api.post(f"/api/notes/{resource_type}/{record.id}", as_=employee, json={"content": "x"})
        assert made.status == 201, (resource_type, made)
        assert len(_notes(api, employee, f"{resource_type}/{record.id}")) == 1
    unknown = api.get(f"/api/notes/planet/{employee.id}", as_=employee)
    assert unknown.status == 400 and unknown.json["details"][0]["field"] == "resource_type"
    for resource_type in ("deal", "company", "contact", "task", "project", "budget", "person", "announcement"):
        assert api.get(f"/api/notes/{resource_type}/missing", as_=exec_user).status == 404, resource_type
        assert api.post(f"/api/notes/{resource_type}/missing", as_=exec_user, json={"content": "x"}).status == 404
    # an invoice is found through the invoices area (executives see every invoice)
    from tests.areas.invoices.factories import make_invoice

    invoice = make_invoice(db)
    assert api.post(f"/api/notes/invoice/{invoice.id}", as_=exec_user, json={"content": "x"}).status == 201
    assert len(_notes(api, exec_user, f"invoice/{invoice.id}")) == 1
    assert api.get("/api/notes/invoice/missing", as_=exec_user).status == 404
    # candidate and scorecard have no area (404 always); a review or proposal with this id does not exist
    for resource_type in ("candidate", "scorecard", "review", "proposal"):
        assert api.get(f"/api/notes/{resource_type}/{employee.id}", as_=exec_user).status == 404


def test_notes_on_a_proposal_follow_the_proposal_scope(api, db, employee, exec_user):
    from tests.areas.proposals.factories import create as create_proposal

    own = create_proposal(api, employee)
    others = create_proposal(api, exec_user)
    assert api.post(f"/api/notes/proposal/{own}", as_=employee, json={"content": "Check pricing"}).status == 201
    assert [n["content"] for n in _notes(api, employee, f"proposal/{own}")] == ["Check pricing"]
    assert [n["content"] for n in _notes(api, exec_user, f"proposal/{own}")] == ["Check pricing"]
    # an employee sees their own proposals only: another's proposal is out of scope
    assert api.get(f"/api/notes/proposal/{others}", as_=employee).status == 404
    assert api.post(f"/api/notes/proposal/{others}", as_=employee, json={"content": "x"}).status == 404
    assert api.post(f"/api/notes/proposal/{others}", as_=exec_user, json={"content": "x"}).status == 201
    grant(db, employee, "proposals", "none")
    assert api.get(f"/api/notes/proposal/{own}", as_=employee).status == 403


def test_record_scope_and_tool_permission(api, db, employee):
    hidden = make_project(db)
    assert api.get(f"/api/notes/project/{hidden.id}", as_=employee).status == 404
    assert api.post(f"/api/notes/project/{hidden.id}", as_=employee, json={"content": "x"}).status == 404
    company = make_company(db)
    grant(db, employee, "deals", "none")
    assert api.get(f"/api/notes/company/{company.id}", as_=employee).status == 403
    assert api.post(f"/api/notes/company/{company.id}", as_=employee, json={"content": "x"}).status == 403


def test_visibility_levels(api, db, employee, exec_user):
    company = make_company(db)
    path = f"company/{company.id}"
    lead = make_user(db, access_level="lead")
    manager = make_user(db, access_level="manager")
    for_managers = api.post(f"/api/notes/{path}", as_=exec_user, json={"content": "m", "visibility": ["manager"]})
    own = api.post(f"/api/notes/{path}", as_=lead, json={"content": "mine", "visibility": ["manager"]})
    for_all = api.post(f"/api/notes/{path}", as_=exec_user, json={"content": "all"})
    ids = lambda user: {n["id"] for n in _notes(api, user, path)}  # noqa: E731
    assert ids(employee) == {for_all.json["id"]}
    assert ids(lead) == {for_all.json["id"], own.json["id"]}  # the author always reads their own note
    assert ids(manager) == ids(exec_user) == {for_all.json["id"], own.json["id"], for_managers.json["id"]}
    # a note the caller may not read answers 404 on edit and delete
    assert api.put(f"/api/notes/{for_managers.json['id']}", as_=employee, json={"content": "x"}).status == 404
    assert api.delete(f"/api/notes/{for_managers.json['id']}", as_=employee).status == 404
    bad = api.post(f"/api/notes/{path}", as_=employee, json={"content": "x", "visibility": ["boss"]})
    assert bad.status == 400


def test_person_notes_follow_the_hierarchy(api, db, exec_user):
    head = make_user(db, access_level="head")
    manager = make_user(db, access_level="manager", manager_id=head.id)
    report = make_user(db, access_level="employee", manager_id=manager.id)
    outsider = make_user(db, access_level="employee")
    for person in (manager, report, outsider):
        made = api.post(f"/api/notes/person/{person.id}", as_=exec_user, json={"content": f"about {person.name}"})
        assert made.status == 201

    def reads(user, person):
        answer = api.get(f"/api/notes/person/{person.id}", as_=user)
        assert answer.status in (200, 404), answer
        return answer.status == 200

    assert all(reads(exec_user, p) for p in (manager, report, outsider, head))
    assert reads(head, manager) and reads(head, report) and not reads(head, outsider)  # the subtree, any depth
    assert reads(manager, report) and not reads(manager, outsider) and not reads(manager, head)
    assert not reads(report, manager) and not reads(report, outsider)
    # nobody reads the notes about themselves through the hierarchy (document 2 lists who does): not the report,
    # not the manager, not the head
    assert not reads(report, report) and not reads(manager, manager) and not reads(head, head)
    assert api.post(f"/api/notes/person/{outsider.id}", as_=manager, json={"content": "x"}).status == 404
    assert api.post(f"/api/notes/person/{report.id}", as_=report, json={"content": "x"}).status == 404


def test_a_person_does_not_read_their_managers_notes_about_them(api, db):
    """Document 2: "Person notes are filtered by the caller's access level against each note's visibility, and by
    org hierarchy: executives see all, heads their subtree, managers their direct reports." A note written without
    `visibility` names every level; the report it is about still does not read it (the old code let everyone read
    the notes about themselves)."""
    manager = make_user(db, access_level="manager")
    report = make_user(db, access_level="employee", manager_id=manager.id)
    lead = make_user(db, access_level="lead", manager_id=manager.id)
    for person in (report, lead):
        made = api.post(f"/api/notes/person/{person.id}", as_=manager, json={"content": "Performance concern"})
        assert made.status == 201, made
        assert api.get(f"/api/notes/person/{person.id}", as_=person).status == 404
        assert api.put(f"/api/notes/{made.json['id']}", as_=person, json={"content": "x"}).status == 404
        assert api.delete(f"/api/notes/{made.json['id']}", as_=person).status == 404
        # the author reads the note they wrote
        assert [n["content"] for n in _notes(api, manager, f"person/{person.id}")] == ["Performance concern"]


def test_a_mention_on_a_note_about_oneself_carries_no_text(api, db, exec_user):
    """The mentioned person the note is about does not read it: the mention carries the title and link only."""
    person = make_user(db, access_level="employee")
    made = api.post(f"/api/notes/person/{person.id}", as_=exec_user,
                    json={"content": "Salary review", "mentions": [person.id]})
    assert made.status == 201, made
    sent = db.scalars(select(Notification).where(Notification.resource_id == made.json["id"])).all()
    assert [(n.user_id, n.body) for n in sent] == [(person.id, None)]


def test_threading(api, db, employee):
    company, other = make_company(db), make_company(db)
    root = api.post(f"/api/notes/company/{company.id}", as_=employee, json={"content": "root"}).json["id"]
    reply = api.post(f"/api/notes/company/{company.id}", as_=employee, json={"content": "reply", "parent_id": root})
    assert reply.status == 201
    listed = {n["id"]: n for n in _notes(api, employee, f"company/{company.id}")}
    assert listed[reply.json["id"]]["parent_id"] == root
    wrong = api.post(f"/api/notes/company/{other.id}", as_=employee, json={"content": "x", "parent_id": root})
    assert wrong.status == 400 and wrong.json["details"][0]["field"] == "parent_id"
    missing = api.post(f"/api/notes/company/{company.id}", as_=employee, json={"content": "x", "parent_id": "nope"})
    assert missing.status == 400
    assert api.delete(f"/api/notes/{root}", as_=employee).json == {"ok": True}  # replies go with it
    assert _notes(api, employee, f"company/{company.id}") == []


def test_mentions_notify_with_a_deep_link(api, db, employee):
    colleague = make_user(db)
    inactive = make_user(db, is_active=False)
    deal = make_deal(db)
    made = api.post(f"/api/notes/deal/{deal.id}", as_=employee,
                    json={"content": "Look at this", "mentions": [colleague.id, colleague.id, employee.id]})
    assert made.status == 201
    note = _notes(api, employee, f"deal/{deal.id}")[0]
    assert note["mentions"] == [colleague.id, employee.id]
    sent = db.scalars(select(Notification).where(Notification.type == "mention")).all()
    assert [(n.user_id, n.action_url, n.resource_id) for n in sent] == [
        (colleague.id, f"/deals/{deal.id}#note-{made.json['id']}", made.json["id"])]  # not the author
    for mentions in ([inactive.id], ["nobody"]):
        refused = api.post(f"/api/notes/deal/{deal.id}", as_=employee, json={"content": "x", "mentions": mentions})
        assert refused.status == 400 and refused.json["details"][0]["field"] == "mentions"


def test_edit_by_author_or_executive_delete_by_author_or_manage(api, db, employee, exec_user):
    colleague = make_user(db)
    company = make_company(db)
    note = api.post(f"/api/notes/company/{company.id}", as_=employee, json={"content": "x"}).json["id"]
    assert api.put(f"/api/notes/{note}", as_=colleague, json={"content": "y"}).status == 403
    assert api.put(f"/api/notes/{note}", as_=exec_user, json={"content": "by exec"}).json == {"ok": True}
    assert api.delete(f"/api/notes/{note}", as_=colleague).status == 403
    grant(db, colleague, "deals", "manage")
    assert api.delete(f"/api/notes/{note}", as_=colleague).json == {"ok": True}


def test_list_costs_constant_statements(api, db, exec_user, count_queries):
    def cost(n):
        company = make_company(db)
        authors = [make_user(db) for _ in range(3)]
        from chalicelib.areas.notes.models import Note

        parent = None
        for i in range(n):
            note = Note(resource_type="company", resource_id=company.id, author_id=authors[i % 3].id, content=str(i),
                        visibility=["executive"], mentions=[], parent_id=parent)
            db.add(note)
            db.flush()
            parent = parent or note.id
        with count_queries() as counter:
            answer = api.get(f"/api/notes/company/{company.id}", as_=exec_user)
        assert answer.status == 200 and len(answer.json["notes"]) == n
        return counter.count

    assert cost(5) == cost(100)


def test_a_mention_carries_the_text_only_to_a_level_that_reads_the_note(api, db, employee, exec_user):
    """A mentioned user whose access level is not in the note's visibility is told of the mention, with the
    deep link, but the notification does not carry the note's text."""
    lead = make_user(db, access_level="lead")
    deal = make_deal(db)
    made = api.post(f"/api/notes/deal/{deal.id}", as_=exec_user,
                    json={"content": "Managers only: the margin is thin", "visibility": ["manager"],
                          "mentions": [lead.id, employee.id]})
    assert made.status == 201
    sent = {n.user_id: n for n in db.scalars(select(Notification).where(Notification.type == "mention"))}
    assert set(sent) == {lead.id, employee.id}
    assert all(n.body is None and n.action_url.endswith(f"#note-{made.json['id']}") for n in sent.values())
    everyone = api.post(f"/api/notes/deal/{deal.id}", as_=exec_user, json={"content": "All may read", "mentions": [lead.id]})
    assert everyone.status == 201
    told = db.scalars(select(Notification).where(Notification.type == "mention",
                                                 Notification.resource_id == everyone.json["id"])).one()
    assert told.body == "All may read"


def test_a_mention_carries_the_text_only_to_who_may_read_the_note(api, db, employee, exec_user):
    """docs/decisions/notes.md: a mention never shows a note to someone who may not read it. Reading it takes the
    note's visibility level, view on the record's tool and the record in one's scope; the text went to every
    mentioned user whose level was in the visibility. The others are told of the mention with the link alone."""
    colleague = make_user(db, access_level="employee", name="Colleague")   # the task is not in their scope
    no_deals = make_user(db, access_level="employee", name="No deals")
    grant(db, no_deals, "deals", "none")
    task = make_task(db, title="Mine", assignee_id=employee.id)
    made = api.post(f"/api/notes/task/{task.id}", as_=employee, json={
        "content": "The client wants a discount", "mentions": [colleague.id, exec_user.id]})
    assert made.status == 201, made
    deal = make_deal(db)
    on_deal = api.post(f"/api/notes/deal/{deal.id}", as_=employee, json={
        "content": "Deal margin", "mentions": [no_deals.id, colleague.id]})
    assert on_deal.status == 201, on_deal
    sent = {(n.resource_id, n.user_id): n.body
            for n in db.scalars(select(Notification).where(Notification.type == "mention"))}
    assert sent == {(made.json["id"], colleague.id): None, (made.json["id"], exec_user.id): "The client wants a discount",
                    (on_deal.json["id"], no_deals.id): None, (on_deal.json["id"], colleague.id): "Deal margin"}
