"""Session 25 (audit "events that reach nobody"). A client's request, questionnaire and connection told the first
active of the two delivery managers (the project's, the client profile's); with neither, nobody, though the project
had an active owner or the company an owner. The chain now goes on to the project's owner, then the company's owner
(the request's watcher is the one told). A client's note or reply in the portal told no staff member at all: it now
tells one (`portal_note`): a reply the parent note's staff author when active and a reader of the record, else (and
a new note) the first active reader of the record's chain. docs/decisions/portal.md, session 25."""
from decimal import Decimal

from sqlalchemy import select

from chalicelib.areas.tasks.models import TaskWatcher
from chalicelib.core.notify import Notification
from tests.areas.budgets.factories import make_budget
from tests.areas.invoices.factories import make_invoice
from tests.areas.portal.conftest import make_client
from tests.areas.portal.test_connections_routes import GOOGLE
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _deactivate(db, *users) -> None:
    for user in users:
        user.is_active = False
    db.flush()


def _watchers(db, task_id) -> list[str]:
    return db.scalars(select(TaskWatcher.user_id).where(TaskWatcher.task_id == task_id)).all()


def _told(db, type) -> list[str]:
    db.expire_all()
    return db.scalars(select(Notification.user_id).where(Notification.type == type)).all()


def _notice(db, type):
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.type == type)).one()


def _request(portal, company, project=None, title="Site down") -> str:
    body = {"title": title, **({"projectId": project.id} if project else {})}
    answer = portal.post("/requests", company, role="collaborator", json=body)
    assert answer.status == 201, answer
    return answer.json["taskId"]


# ---------------------------------------------------------------- 1. request, questionnaire, connection


def test_a_request_with_no_delivery_manager_goes_to_the_project_s_owner_who_watches_it(portal, api, db):
    owner = make_user(db, access_level="lead")
    boss = make_user(db, access_level="lead")
    company = make_client(db, owner_id=boss.id)
    project = make_project(db, company_id=company.id, owner_id=owner.id)
    task_id = _request(portal, company, project)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([owner.id], [owner.id])
    assert _notice(db, "portal_request").action_url == f"/tasks/{task_id}"
    assert api.get(f"/api/tasks/{task_id}", as_=owner).status == 200  # the link opens: they watch it


def test_the_profile_s_manager_still_comes_before_the_project_s_owner(portal, db):
    owner, profile_dm = make_user(db), make_user(db)
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, owner_id=owner.id)
    task_id = _request(portal, company, project)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([profile_dm.id], [profile_dm.id])


def test_every_project_person_gone_the_company_s_owner_watches_and_is_told(portal, db):
    former_dm, former_owner, former_profile_dm = make_user(db), make_user(db), make_user(db)
    boss = make_user(db, access_level="executive")
    company = make_client(db, manager=former_profile_dm, owner_id=boss.id)
    project = make_project(db, company_id=company.id, owner_id=former_owner.id, delivery_manager_id=former_dm.id)
    _deactivate(db, former_dm, former_owner, former_profile_dm)
    task_id = _request(portal, company, project)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([boss.id], [boss.id])


def test_a_request_in_no_project_goes_to_the_company_s_owner_without_a_profile_manager(portal, db):
    boss = make_user(db, access_level="executive")
    company = make_client(db, owner_id=boss.id)
    task_id = _request(portal, company)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([boss.id], [boss.id])


def test_the_company_s_owner_deactivated_too_nobody_is_told(portal, db):
    boss = make_user(db)
    company = make_client(db, owner_id=boss.id)
    project = make_project(db, company_id=company.id)
    _deactivate(db, boss)
    task_id = _request(portal, company, project)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([], [])


def _request_statements(counter) -> int:
    statements = [" ".join(s.split()) for s in counter.statements if not s.startswith("SAVEPOINT")]
    return next(i for i, s in enumerate(statements) if s.startswith("RELEASE SAVEPOINT"))


def test_reaching_the_company_s_owner_costs_no_statement_more_than_the_project_s_manager(portal, db, count_queries):
    project_dm, boss = make_user(db), make_user(db)
    company = make_client(db, owner_id=boss.id)
    project = make_project(db, company_id=company.id, delivery_manager_id=project_dm.id)
    _request(portal, company, project, title="Warm")
    with count_queries() as to_manager:
        _request(portal, company, project, title="One")
    _deactivate(db, project_dm)
    with count_queries() as to_owner:
        _request(portal, company, project, title="Two")
    assert _request_statements(to_owner) == _request_statements(to_manager)
    assert sorted(_told(db, "portal_request")) == sorted([project_dm.id, project_dm.id, boss.id])


def test_the_questionnaire_goes_to_the_company_s_owner_without_a_profile_manager(portal, db):
    boss = make_user(db)
    company = make_client(db, owner_id=boss.id)
    assert portal.post("/questionnaire", company, role="admin", json={"financial_year_start": "July"}).status == 200
    assert _told(db, "portal_questionnaire") == [boss.id]


def test_a_connection_goes_to_the_company_s_owner_when_the_profile_s_manager_left(portal, db):
    former, boss = make_user(db), make_user(db)
    company = make_client(db, dashboard=True, manager=former, owner_id=boss.id)
    _deactivate(db, former)
    assert portal.post("/connections", company, role="collaborator", json=GOOGLE).status == 201
    assert _told(db, "portal_connection") == [boss.id]


# ---------------------------------------------------------------- 2. a client's note or reply


def _note_body(project, **kw):
    return {"resourceType": "project", "resourceId": project.id, "content": "Attached, thanks", **kw}


def _staff_note(api, author, project, content="Can you send the logo?") -> str:
    note = api.post(f"/api/notes/project/{project.id}", as_=author, json={"content": content,
                                                                         "visibility": ["client"]})
    assert note.status == 201, note
    return note.json.get("id") or note.json["note"]["id"]


def _client_note(portal, company, body) -> str:
    answer = portal.post("/notes", company, role="collaborator", json=body)
    assert answer.status == 201, answer
    return answer.json.get("id") or answer.json.get("noteId") or answer.json["note"]["id"]


def test_a_client_s_reply_tells_the_staff_author_of_the_note_it_answers(portal, api, db):
    author, dm = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    company = make_client(db, manager=dm)
    project = make_project(db, company_id=company.id, delivery_manager_id=dm.id, owner_id=author.id,
                           name="Website rebuild")
    parent = _staff_note(api, author, project)
    reply = _client_note(portal, company, _note_body(project, parentId=parent))
    assert _told(db, "portal_note") == [author.id]
    notice = _notice(db, "portal_note")
    assert "Website rebuild" in notice.title
    assert (notice.action_url, notice.resource_type, notice.resource_id) == (f"/projects/{project.id}", "note", reply)
    assert notice.body == "Attached, thanks"


def test_a_reply_to_a_former_author_s_note_goes_to_the_record_s_delivery_manager(portal, api, db):
    author, dm = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    company = make_client(db)
    project = make_project(db, company_id=company.id, delivery_manager_id=dm.id, owner_id=author.id)
    parent = _staff_note(api, author, project)
    _deactivate(db, author)
    _client_note(portal, company, _note_body(project, parentId=parent))
    assert _told(db, "portal_note") == [dm.id]


def test_a_reply_to_an_author_who_no_longer_reads_the_project_goes_to_its_manager(portal, api, db):
    """The author wrote while the project's owner; the project was handed over since: they are not told of it."""
    author, dm, new_owner = (make_user(db, access_level="lead") for _ in range(3))
    company = make_client(db)
    project = make_project(db, company_id=company.id, delivery_manager_id=dm.id, owner_id=author.id)
    parent = _staff_note(api, author, project)
    project.owner_id = new_owner.id
    db.flush()
    _client_note(portal, company, _note_body(project, parentId=parent))
    assert _told(db, "portal_note") == [dm.id]


def test_a_client_s_new_note_tells_the_project_s_delivery_manager_once(portal, db):
    dm, profile_dm, owner = make_user(db), make_user(db), make_user(db)
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, delivery_manager_id=dm.id, owner_id=owner.id)
    _client_note(portal, company, _note_body(project))
    assert _told(db, "portal_note") == [dm.id]


def test_a_reply_to_a_client_s_note_follows_the_chain(portal, db):
    """The parent has no staff author (a client wrote it): the chain is asked."""
    owner = make_user(db, access_level="lead")
    company = make_client(db)
    project = make_project(db, company_id=company.id, owner_id=owner.id)
    first = _client_note(portal, company, _note_body(project, content="First"))
    assert _told(db, "portal_note") == [owner.id]
    _client_note(portal, company, _note_body(project, content="Second", parentId=first))
    assert _told(db, "portal_note") == [owner.id, owner.id]  # each note is its own event


def test_a_profile_manager_who_does_not_read_the_project_is_passed_over(portal, db):
    """The chain's first ACTIVE READER: a lead named on the profile but on none of the project's people does not see
    the project (their GET answers 404), so the note is not named to them."""
    profile_dm, owner = make_user(db, access_level="lead"), make_user(db, access_level="lead")
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, owner_id=owner.id)
    _client_note(portal, company, _note_body(project))
    assert _told(db, "portal_note") == [owner.id]


def test_a_note_with_no_project_person_goes_to_the_company_s_owner(portal, db):
    former, boss = make_user(db), make_user(db, access_level="executive")
    company = make_client(db, manager=former, owner_id=boss.id)
    project = make_project(db, company_id=company.id)
    _deactivate(db, former)
    _client_note(portal, company, _note_body(project))
    assert _told(db, "portal_note") == [boss.id]


def test_a_note_on_an_invoice_tells_its_project_s_manager_naming_the_invoice(portal, db):
    dm = make_user(db, access_level="lead")
    company = make_client(db)
    project = make_project(db, company_id=company.id, delivery_manager_id=dm.id)
    budget = make_budget(db, resource_id=project.id, company_id=company.id)
    invoice = make_invoice(db, status="sent", company_id=company.id, budget_id=budget.id, invoice_number="INV-7001",
                           total=Decimal("100"))
    body = {"resourceType": "invoice", "resourceId": invoice.id, "content": "Paid yesterday"}
    _client_note(portal, company, body)
    assert _told(db, "portal_note") == [dm.id]
    notice = _notice(db, "portal_note")
    assert "INV-7001" in notice.title and notice.action_url == f"/invoices/{invoice.id}"


def test_nobody_active_nobody_told_and_the_note_is_kept(portal, db):
    company = make_client(db)
    project = make_project(db, company_id=company.id)
    _client_note(portal, company, _note_body(project))
    assert _told(db, "portal_note") == []
