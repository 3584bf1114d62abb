"""Session 23: the paged item list of a roadmap (GET /api/roadmaps/{id}/items) costs the same, stated number of
statements at 5 and at 60 items (docs/area-contract.md, "Reads"); the list and the detail are tested in
test_roadmaps.py."""

from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import exact_statements

from .test_roadmaps import goal

# the caller, the roadmap (its check), the page's rows with the total (one statement), the goals' titles
ITEMS_PAGE_STATEMENTS = 4



def test_roadmap_items_page(api, db, exec_user, count_queries):
    project = make_project(db)
    roadmap = Roadmap(name="R", project_id=project.id)
    db.add(roadmap)
    db.flush()
    made = []

    def grow(n):
        for _ in range(n):
            index = len(made) + 1
            item = RoadmapItem(roadmap_id=roadmap.id, title=f"I{index}", position=index,
                               goal_id=goal(db, project, f"G{index}").id)
            db.add(item)
            db.flush()
            make_task(db, roadmap_item_id=item.id)
            made.append(item.id)

    url = f"/api/roadmaps/{roadmap.id}/items?limit=500"
    body = exact_statements(count_queries, lambda: api.get(url, as_=exec_user), grow, lambda b: len(b["items"]),
                            (5, 60), ITEMS_PAGE_STATEMENTS)
    assert body["total"] == 60
    assert [i["id"] for i in body["items"]] == made
    assert [i["goal_title"] for i in body["items"]] == [f"G{n}" for n in range(1, 61)]
