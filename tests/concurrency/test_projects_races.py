"""Projects' one-per-project records made by concurrent requests, against a real HTTP server on Postgres (the server
and helpers of test_concurrency.py): the first deal links of a project, and its first AI summaries, all answer 200
(a later PUT or POST replaces the record) and leave one record, one request's."""
from __future__ import annotations

import secrets

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _project(sessions, deals: int = 0):
    from tests.areas.deals.factories import make_deal
    from tests.areas.projects.factories import make_project
    from tests.factories import make_user

    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        project = make_project(db)
        made = [make_deal(db) for _ in range(deals)]
        db.commit()
    return user, project, made


def test_first_deal_links_at_once_all_succeed_and_leave_one(live):
    from sqlalchemy import func, select

    from chalicelib.areas.projects.models import ProjectDealLink

    base, sessions = live
    for _ in range(2):  # two rounds: a race that one round may miss
        user, project, deals = _project(sessions, deals=THREADS)
        token = _token(user)
        url = f"/api/projects/{project.id}/deal"
        results = _all_at_once([(lambda deal=deal, url=url, token=token: _call(base, "PUT", url, token,
                                                                               {"deal_id": deal.id}))
                                for deal in deals])
        assert [status for status, _ in results] == [200] * THREADS, results
        with sessions() as db:
            assert db.scalar(select(func.count()).select_from(ProjectDealLink)
                             .where(ProjectDealLink.project_id == project.id)) == 1
        status, body = _call(base, "GET", f"/api/projects/{project.id}/deal", token)
        assert status == 200 and body["deal_link"]["deal_id"] in {deal.id for deal in deals}


def test_first_ai_summaries_at_once_all_succeed(live):
    base, sessions = live
    for _ in range(2):
        user, project, _ = _project(sessions)
        token = _token(user)
        url = f"/api/projects/{project.id}/ai-summary"
        results = _all_at_once([(lambda url=url, token=token: _call(base, "POST", url, token)) for _ in range(THREADS)])
        assert [status for status, _ in results] == [200] * THREADS, results
        status, body = _call(base, "GET", f"/api/projects/{project.id}/ai-summary", token)
        assert status == 200 and body["summary"] is not None



def test_a_record_made_while_its_project_is_deleted_waits_and_names_no_deleted_project(live):
    """A time entry, a sprint, a roadmap or a budget created for a project while the project's delete runs waits for
    the delete (projects.link_project share-locks the row) and then finds it gone (400), instead of naming a
    project that no longer exists (the delete counted no time entry or budget, and deleted no sprint or roadmap,
    that was not yet committed). Session 18."""
    from sqlalchemy import delete

    from chalicelib.areas.projects.models import Project
    from tests.concurrency.test_concurrency import while_held

    base, sessions = live
    for path, body in (("/api/time-entries", {"date": "2026-11-20", "hours": 2}),
                       ("/api/sprints", {"name": "Sprint 9"}),
                       ("/api/roadmaps", {"name": "Plan"}),
                       ("/api/budgets", {"name": "Build", "resource_type": "project"})):
        user, project, _ = _project(sessions)
        token = _token(user)
        body = {**body, ("resource_id" if path == "/api/budgets" else "project_id"): project.id}
        status, answer = while_held(sessions, delete(Project).where(Project.id == project.id),
                                    lambda path=path, body=body, token=token: _call(base, "POST", path, token, body))
        assert status == 400, (path, status, answer)
