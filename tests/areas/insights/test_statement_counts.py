"""Insights: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The workforce reports are tested in test_workforce.py."""
from chalicelib.areas.insights.models import CapacityProject
from chalicelib.core.locks import insert_rows
from tests.areas.deals.factories import make_company
from tests.areas.projects.factories import make_project
from tests.factories import config_item


def test_capacity_heatmap_cells(api, db, exec_user, count_queries):
    website = config_item(db, "project_type", "website")
    counts, done = [], 0
    for total in (5, 100):
        rows = []
        for _ in range(total - done):
            company = make_company(db)
            for status in ("active", "completed"):
                project = make_project(db, company_id=company.id, type_id=website.id, status=status)
                rows.append({"project_id": project.id, "company_id": company.id, "project_type_id": website.id,
                             "status": status})
        insert_rows(db, CapacityProject, [r for r in rows if not db.get(CapacityProject, r["project_id"])])
        done = total
        with count_queries() as counter:
            answer = api.get("/api/insights/capacity-heatmap", as_=exec_user)
        assert answer.status == 200, answer
        assert len(answer.json["cells"]) >= total
        counts.append(counter.count)
    assert all(c["company_name"] and c["project_type_label"] for c in answer.json["cells"])
    assert counts[0] == counts[1], counts
