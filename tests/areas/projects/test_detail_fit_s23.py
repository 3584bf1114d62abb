"""Session 23: a project's detail embeds its goals (at most 500, each with a description of up to 50,000
characters: 300 KB as the python3.11 runtime writes non-ASCII text), so 20 long goals made `GET /api/projects/:id`
a 413 for every reader. Its goals are cut to those that fit a Lambda answer (6 MB), in order, and the detail then
says how many it carries (`goals_limit`, only when cut); the rest are read from the paged `GET .../goals`."""
import json

from chalicelib.areas.projects.models import ProjectGoal
from chalicelib.core.http import LAMBDA_PAYLOAD_LIMIT
from chalicelib.core.locks import insert_rows

from .factories import make_project

LONG = "\u00e9" * 50_000  # the longest goal description; 300 KB as the runtime writes it
GOALS = 25  # 7.5 MB of goals


def runtime_size(response) -> int:
    """What the python3.11 runtime writes of the body (ensure_ascii), less its two quotes."""
    return len(json.dumps(response.body.decode(), ensure_ascii=True)) - 2


def _long_goals(db, project, n=GOALS):
    insert_rows(db, ProjectGoal, [{"project_id": project.id, "title": f"g{i:02}", "description": LONG,
                                   "status": "not_started", "position": i} for i in range(n)])


def test_a_detail_whose_goals_pass_6_mb_answers_the_goals_that_fit_and_the_rest_are_paged(api, db, exec_user):
    project = make_project(db)
    _long_goals(db, project)
    response = api.get(f"/api/projects/{project.id}", as_=exec_user)
    assert response.status == 200, response.json
    assert runtime_size(response) <= LAMBDA_PAYLOAD_LIMIT
    body = response.json
    titles = [g["title"] for g in body["goals"]]
    assert 0 < len(titles) < GOALS and titles == [f"g{i:02}" for i in range(len(titles))]
    assert body["goals_limit"] == len(titles)
    assert set(body) == {"project", "members", "goals", "goals_limit"}
    assert all(g["description"] == LONG for g in body["goals"])

    seen, offset = [], body["goals_limit"]  # the rest, from the goals route, in pages that fit
    while True:
        page = api.get(f"/api/projects/{project.id}/goals?offset={offset}", as_=exec_user)
        assert page.status == 200, page.json
        assert runtime_size(page) <= LAMBDA_PAYLOAD_LIMIT
        assert page.json["total"] == GOALS and page.json["offset"] == offset
        seen += [g["title"] for g in page.json["goals"]]
        offset += page.json["limit"]
        if offset >= page.json["total"]:
            break
    assert titles + seen == [f"g{i:02}" for i in range(GOALS)]


def test_a_detail_that_fits_is_unchanged(api, db, exec_user):
    project = make_project(db)
    insert_rows(db, ProjectGoal, [{"project_id": project.id, "title": f"g{i}", "description": "short",
                                   "status": "not_started", "position": i} for i in range(3)])
    body = api.get(f"/api/projects/{project.id}", as_=exec_user).json
    assert set(body) == {"project", "members", "goals"}
    assert [g["title"] for g in body["goals"]] == ["g0", "g1", "g2"]


def test_the_goals_route_is_paged(api, db, exec_user):
    project = make_project(db)
    insert_rows(db, ProjectGoal, [{"project_id": project.id, "title": f"g{i}", "status": "not_started",
                                   "position": i} for i in range(5)])
    path = f"/api/projects/{project.id}/goals"
    page = api.get(f"{path}?limit=2&offset=1", as_=exec_user).json
    assert [g["title"] for g in page["goals"]] == ["g1", "g2"]
    assert (page["total"], page["limit"], page["offset"]) == (5, 2, 1)
    whole = api.get(path, as_=exec_user).json
    assert [g["title"] for g in whole["goals"]] == [f"g{i}" for i in range(5)] and whole["total"] == 5
