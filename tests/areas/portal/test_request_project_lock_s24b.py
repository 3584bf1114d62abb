"""A client's request naming a project reads that project share-locked (FOR KEY SHARE OF projects, as a staff task
create's link_project) in the one statement that checks it is the company's: no statement more than before session 24
(the race itself, against a live server: tests/concurrency/test_portal_request_project_s24.py). A project of another
company, or none, still answers 400 on projectId."""
import pytest
from sqlalchemy import event, func, select

from chalicelib.areas.tasks.models import Task
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project


def _statements(engine, call) -> list[str]:
    seen = []

    def before(conn, cursor, statement, parameters, context, executemany):
        seen.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", before)
    try:
        call()
    finally:
        event.remove(engine, "before_cursor_execute", before)
    return seen


def test_the_request_reads_its_project_share_locked_in_one_statement(portal, db, engine):
    if engine.dialect.name != "postgresql":
        pytest.skip("row locks are Postgres's (SQLite serialises writers)")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    answers = []
    seen = _statements(engine, lambda: answers.append(
        portal.post("/requests", mine, role="collaborator", json={"title": "Fix it", "projectId": project.id})))
    assert answers[0].status == 201, answers[0]
    reads = [s for s in seen if s.startswith("SELECT") and " FROM projects" in s]
    # the project read once, share-locked; then (session 26) the request's manager, which the projects area derives
    # from the project's row (request_manager: one statement, after the lock), as the portal's own chain did before
    assert len(reads) == 2, reads
    assert reads[0].endswith("FOR KEY SHARE OF projects) AS record_row"), reads[0]
    assert "coalesce" in reads[1] and "record_row" not in reads[1], reads[1]


def test_a_project_of_another_company_is_still_refused_on_project_id(portal, db):
    mine, theirs = make_client(db), make_client(db)
    project = make_project(db, company_id=theirs.id)
    for project_id in (project.id, "p" * 36, "p" * 37):
        answer = portal.post("/requests", mine, role="collaborator", json={"title": "Fix it", "projectId": project_id})
        assert answer.status == 400, answer
        assert answer.json["details"][0]["field"] == "projectId", answer.json
    assert db.scalar(select(func.count()).select_from(Task).where(Task.resource_id == project.id)) == 0
