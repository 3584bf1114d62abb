"""Session 23: the portal's project detail (`GET /api/portal/projects/:id`, `{ project, goals, members, aiSummary,
decisions }`) embeds two lists of long rows: goals (at most 500, a description of up to 50,000 characters each) and
decisions (at most 500, a decision and a rationale of up to 50,000 each). Enough of either made the detail a 413,
and so the portal's project page unreadable. They are now cut to what fits a Lambda answer (6 MB), goals first
(the portal has no other read of them), then decisions (read in full from the paged `GET .../decisions`); a list
cut says how many rows it carries (`goals_limit`, `decisions_limit`, present only then)."""
import json
from datetime import date, timedelta

from chalicelib.areas.projects.models import ProjectDecision, ProjectGoal
from chalicelib.core.http import LAMBDA_PAYLOAD_LIMIT
from chalicelib.core.locks import insert_rows
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project

LONG = "\u00e9" * 50_000  # the longest text: 300 KB as the python3.11 runtime writes it
DETAIL_KEYS = {"project", "goals", "members", "aiSummary", "decisions"}


def runtime_size(response) -> int:
    """What the python3.11 runtime writes of the body (ensure_ascii), less its two quotes."""
    return len(json.dumps(response.body.decode(), ensure_ascii=True)) - 2


def _goals(db, project, n, description):
    insert_rows(db, ProjectGoal, [{"project_id": project.id, "title": f"g{i:02}", "description": description,
                                   "status": "not_started", "position": i} for i in range(n)])


def _decisions(db, project, n, text):
    insert_rows(db, ProjectDecision, [{"project_id": project.id, "title": f"d{i:02}", "decision": text,
                                       "rationale": text, "status": "agreed",
                                       "decided_at": date(2030, 1, 1) - timedelta(days=i)} for i in range(n)])


def _walk_decisions(portal, company, project, offset, total):
    seen = []
    while offset < total:
        page = portal.get(f"/projects/{project.id}/decisions?offset={offset}", company)
        assert page.status == 200, page.json
        assert runtime_size(page) <= LAMBDA_PAYLOAD_LIMIT
        assert page.json["total"] == total and page.json["offset"] == offset
        seen += [d["title"] for d in page.json["decisions"]]
        offset += page.json["limit"]
    return seen


def test_decisions_past_6_mb_are_cut_to_those_that_fit_and_the_rest_are_paged(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _goals(db, project, 3, "short")
    _decisions(db, project, 12, LONG)  # 7.2 MB of decisions
    response = portal.get(f"/projects/{project.id}", mine)
    assert response.status == 200, response.json
    assert runtime_size(response) <= LAMBDA_PAYLOAD_LIMIT
    body = response.json
    assert set(body) == DETAIL_KEYS | {"decisions_limit"}
    assert [g["title"] for g in body["goals"]] == ["g00", "g01", "g02"]
    titles = [d["title"] for d in body["decisions"]]
    assert 0 < len(titles) < 12 and titles == [f"d{i:02}" for i in range(len(titles))]
    assert body["decisions_limit"] == len(titles)
    rest = _walk_decisions(portal, mine, project, body["decisions_limit"], 12)
    assert titles + rest == [f"d{i:02}" for i in range(12)]


def test_goals_past_6_mb_are_cut_first_and_no_decision_follows(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _goals(db, project, 25, LONG)  # 7.5 MB of goals
    _decisions(db, project, 2, "short")
    response = portal.get(f"/projects/{project.id}", mine)
    assert response.status == 200, response.json
    assert runtime_size(response) <= LAMBDA_PAYLOAD_LIMIT
    body = response.json
    assert set(body) == DETAIL_KEYS | {"goals_limit", "decisions_limit"}
    titles = [g["title"] for g in body["goals"]]
    assert 0 < len(titles) < 25 and titles == [f"g{i:02}" for i in range(len(titles))]
    assert body["goals_limit"] == len(titles)
    assert body["decisions"] == [] and body["decisions_limit"] == 0
    assert _walk_decisions(portal, mine, project, 0, 2) == ["d00", "d01"]


def test_goals_filling_the_answer_leave_no_room_for_a_decision(portal, db):
    """The goals fit, with no room left for the first decision: the detail answers the goals and no decision
    (a 413 otherwise)."""
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _goals(db, project, 19, LONG)  # 5.7 MB
    _decisions(db, project, 1, LONG)  # 600 KB
    response = portal.get(f"/projects/{project.id}", mine)
    assert response.status == 200, response.json
    body = response.json
    assert set(body) == DETAIL_KEYS | {"decisions_limit"}
    assert len(body["goals"]) == 19 and body["decisions"] == [] and body["decisions_limit"] == 0


def test_a_detail_that_fits_is_unchanged(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _goals(db, project, 2, "short")
    _decisions(db, project, 2, "short")
    body = portal.get(f"/projects/{project.id}", mine).json
    assert set(body) == DETAIL_KEYS
    assert [g["title"] for g in body["goals"]] == ["g00", "g01"]
    assert [d["title"] for d in body["decisions"]] == ["d00", "d01"]


def test_the_decisions_route_is_paged(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _decisions(db, project, 5, "short")
    page = portal.get(f"/projects/{project.id}/decisions?limit=2&offset=1", mine)
    assert page.status == 200, page.json
    assert [d["title"] for d in page.json["decisions"]] == ["d01", "d02"]
    assert (page.json["total"], page.json["limit"], page.json["offset"]) == (5, 2, 1)
    assert len(portal.get(f"/projects/{project.id}/decisions", mine).json["decisions"]) == 5
