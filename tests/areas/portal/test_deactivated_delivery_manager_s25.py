"""Session 25 (users audit): the delivery manager the portal tells is the first ACTIVE one. A client's request goes to
the project's delivery manager, else the client profile's: a project's manager who was deactivated is passed over for
the profile's (before, the request's task was made with no watcher and nobody active was told: it sat unseen). The
questionnaire and a connection tell the profile's manager alone: a deactivated one is told nothing, and no notice is
attempted (as when none is set). docs/decisions/portal.md, "A deactivated delivery manager"."""
from sqlalchemy import select

from chalicelib.areas.tasks.models import TaskWatcher
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client
from tests.areas.portal.test_connections_routes import GOOGLE
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _request(portal, company, project, title="Site down"):
    answer = portal.post("/requests", company, role="collaborator", json={"title": title, "projectId": project.id})
    assert answer.status == 201, answer
    return answer.json["taskId"]


def _watchers(db, task_id) -> list[str]:
    return db.scalars(select(TaskWatcher.user_id).where(TaskWatcher.task_id == task_id)).all()


def _told(db, type) -> list[str]:
    return db.scalars(select(Notification.user_id).where(Notification.type == type)).all()


def _deactivate(db, *users) -> None:
    for user in users:
        user.is_active = False  # deactivated after being named on the project or profile
    db.flush()


def test_the_profile_s_delivery_manager_watches_and_is_told_when_the_project_s_was_deactivated(portal, api, db):
    former = make_user(db, access_level="lead")
    current = make_user(db, access_level="lead")
    company = make_client(db, manager=current)
    project = make_project(db, company_id=company.id, delivery_manager_id=former.id)
    _deactivate(db, former)
    task_id = _request(portal, company, project)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([current.id], [current.id])
    link = db.scalar(select(Notification.action_url).where(Notification.user_id == current.id))
    assert link == f"/tasks/{task_id}"
    assert api.get(f"/api/tasks/{task_id}", as_=current).status == 200  # they may open it: they watch it


def test_both_delivery_managers_deactivated_the_request_is_taken_and_nobody_is_told(portal, db):
    former, other = make_user(db), make_user(db)
    company = make_client(db, manager=other)
    project = make_project(db, company_id=company.id, delivery_manager_id=former.id)
    _deactivate(db, former, other)
    task_id = _request(portal, company, project)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([], [])
    # a request with no project: the profile's deactivated manager alone, told nothing either
    answer = portal.post("/requests", company, role="collaborator", json={"title": "No project"})
    assert answer.status == 201, answer
    assert (_watchers(db, answer.json["taskId"]), _told(db, "portal_request")) == ([], [])


def test_the_project_s_active_delivery_manager_still_wins_over_the_profile_s(portal, db):
    project_dm, profile_dm = make_user(db), make_user(db)
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, delivery_manager_id=project_dm.id)
    task_id = _request(portal, company, project)
    assert (_watchers(db, task_id), _told(db, "portal_request")) == ([project_dm.id], [project_dm.id])


def _request_statements(counter) -> int:
    """The statements of the request's own transaction (the deliveries sent after its commit left out)."""
    statements = [" ".join(s.split()) for s in counter.statements if not s.startswith("SAVEPOINT")]
    return next(i for i, s in enumerate(statements) if s.startswith("RELEASE SAVEPOINT"))


def test_passing_over_a_deactivated_project_manager_costs_no_statement_more(portal, db, count_queries):
    """The manager is chosen in one statement, whichever of the two it is."""
    project_dm, profile_dm = make_user(db), make_user(db)
    company = make_client(db, manager=profile_dm)
    project = make_project(db, company_id=company.id, delivery_manager_id=project_dm.id)
    _request(portal, company, project, title="Warm")  # the first request records the portal user, prepares templates
    with count_queries() as active:
        _request(portal, company, project, title="One")
    _deactivate(db, project_dm)
    with count_queries() as passed_over:
        _request(portal, company, project, title="Two")
    assert _request_statements(passed_over) == _request_statements(active)
    assert sorted(_told(db, "portal_request")) == sorted([project_dm.id, project_dm.id, profile_dm.id])


def _notice_attempted(counter) -> bool:
    """Whether the write tried to notify anybody (core.notify reads the recent notifications first)."""
    return any("FROM notifications" in " ".join(s.split()) for s in counter.statements)


def test_a_deactivated_profile_manager_is_not_told_of_the_questionnaire_and_no_notice_is_attempted(
        portal, db, count_queries):
    manager = make_user(db)
    company = make_client(db, manager=manager)
    _deactivate(db, manager)
    with count_queries() as counter:
        answer = portal.post("/questionnaire", company, role="admin", json={"financial_year_start": "July"})
    assert answer.status == 200, answer
    assert _told(db, "portal_questionnaire") == []
    assert not _notice_attempted(counter)


def test_an_active_profile_manager_is_told_of_the_questionnaire(portal, db):
    manager = make_user(db)
    company = make_client(db, manager=manager)
    assert portal.post("/questionnaire", company, role="admin", json={"financial_year_start": "July"}).status == 200
    assert _told(db, "portal_questionnaire") == [manager.id]


def test_a_deactivated_profile_manager_is_not_told_of_a_connection_and_no_notice_is_attempted(
        portal, db, count_queries):
    manager = make_user(db)
    company = make_client(db, dashboard=True, manager=manager)
    _deactivate(db, manager)
    with count_queries() as counter:
        answer = portal.post("/connections", company, role="collaborator", json=GOOGLE)
    assert answer.status == 201, answer
    assert _told(db, "portal_connection") == []
    assert not _notice_attempted(counter)


def test_an_active_profile_manager_is_told_of_a_connection(portal, db):
    manager = make_user(db)
    company = make_client(db, dashboard=True, manager=manager)
    assert portal.post("/connections", company, role="collaborator", json=GOOGLE).status == 201
    assert _told(db, "portal_connection") == [manager.id]
