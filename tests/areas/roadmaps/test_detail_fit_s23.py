"""Session 23: a roadmap's detail embeds its items (at most 500, each with a description of up to 20,000
characters: 120 KB as the python3.11 runtime writes non-ASCII text), so 50 long items made `GET /api/roadmaps/:id`
a 413 for every reader. Its items are cut to those that fit a Lambda answer (6 MB), in order: fewer than the
roadmap's `item_count` then, the rest read from the paged `GET /api/roadmaps/:id/items` (added: the document lists
no read of a roadmap's items but the detail)."""
import json

from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from chalicelib.core.http import LAMBDA_PAYLOAD_LIMIT
from chalicelib.core.locks import insert_rows
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user

LONG = "\u00e9" * 20_000  # the longest item description; 120 KB as the runtime writes it
ITEMS = 60  # 7.2 MB of items


def runtime_size(response) -> int:
    """What the python3.11 runtime writes of the body (ensure_ascii), less its two quotes."""
    return len(json.dumps(response.body.decode(), ensure_ascii=True)) - 2


def _roadmap(db, project_id=None, n=ITEMS, description=LONG):
    roadmap = Roadmap(name="Plan", project_id=project_id)
    db.add(roadmap)
    db.flush()
    insert_rows(db, RoadmapItem, [{"roadmap_id": roadmap.id, "title": f"i{i:02}", "description": description,
                                   "position": i} for i in range(n)])
    return roadmap


def test_a_detail_whose_items_pass_6_mb_answers_the_items_that_fit_and_the_rest_are_paged(api, db, exec_user):
    roadmap = _roadmap(db)
    first = db.scalar(RoadmapItem.__table__.select().with_only_columns(RoadmapItem.id)
                      .where(RoadmapItem.roadmap_id == roadmap.id, RoadmapItem.position == 0))
    linked = make_task(db, title="linked", roadmap_item_id=first)
    response = api.get(f"/api/roadmaps/{roadmap.id}", as_=exec_user)
    assert response.status == 200, response.json
    assert runtime_size(response) <= LAMBDA_PAYLOAD_LIMIT
    body = response.json
    titles = [i["title"] for i in body["items"]]
    assert 0 < len(titles) < ITEMS and titles == [f"i{i:02}" for i in range(len(titles))]
    assert body["roadmap"]["item_count"] == ITEMS
    assert set(body) == {"roadmap", "items", "tasks", "tasks_total"}
    assert [t["id"] for t in body["tasks"]] == [linked.id] and body["tasks_total"] == 1

    seen, offset = [], len(titles)  # the rest, from the items route, in pages that fit
    while True:
        page = api.get(f"/api/roadmaps/{roadmap.id}/items?offset={offset}", as_=exec_user)
        assert page.status == 200, page.json
        assert runtime_size(page) <= LAMBDA_PAYLOAD_LIMIT
        assert page.json["total"] == ITEMS and page.json["offset"] == offset
        seen += [i["title"] for i in page.json["items"]]
        offset += page.json["limit"]
        if offset >= page.json["total"]:
            break
    assert titles + seen == [f"i{i:02}" for i in range(ITEMS)]


def test_a_detail_that_fits_is_unchanged(api, db, exec_user):
    roadmap = _roadmap(db, n=3, description="short")
    body = api.get(f"/api/roadmaps/{roadmap.id}", as_=exec_user).json
    assert set(body) == {"roadmap", "items", "tasks", "tasks_total"}
    assert [i["title"] for i in body["items"]] == ["i00", "i01", "i02"] and body["roadmap"]["item_count"] == 3


def test_the_items_route_is_paged_and_scoped(api, db, exec_user):
    roadmap = _roadmap(db, n=5, description="d")
    path = f"/api/roadmaps/{roadmap.id}/items"
    page = api.get(f"{path}?limit=2&offset=1", as_=exec_user).json
    assert [i["title"] for i in page["items"]] == ["i01", "i02"]
    assert (page["total"], page["limit"], page["offset"]) == (5, 2, 1)
    detail = api.get(f"/api/roadmaps/{roadmap.id}", as_=exec_user).json
    assert api.get(path, as_=exec_user).json["items"] == detail["items"]  # the detail's records
    employee = make_user(db, access_level="employee")
    hidden = _roadmap(db, project_id=make_project(db).id, n=1, description="d")
    assert api.get(f"/api/roadmaps/{hidden.id}/items", as_=employee).status == 404
    assert api.get("/api/roadmaps/missing/items", as_=exec_user).status == 404
