"""Session 24 (reversals audit): a deleted client request takes its `portal_request_updated` notices with it, as the
notices of a deleted QBR, budget or reply are withdrawn (docs/decisions/portal.md, "Withdrawn notices"): they pointed at
a request the portal no longer lists."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalNotification
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import status


def _notices(db, company):
    db.expire_all()
    return db.scalars(select(PortalNotification.resource_id).where(
        PortalNotification.company_id == company.id, PortalNotification.type == "portal_request_updated")).all()


def test_a_deleted_request_withdraws_its_status_notices_and_no_other(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    assert portal.get("/notifications/unread-count", mine, user="pu-1").status == 200
    ids = []
    for title in ("Fix the footer", "New banner"):
        made = portal.post("/requests", mine, role="collaborator", user="pu-1",
                           json={"title": title, "projectId": project.id})
        assert made.status == 201, made
        ids.append(made.json["taskId"])
    doing = status(db, "in_progress")
    for task_id in ids:
        assert api.put(f"/api/tasks/{task_id}", json={"status_id": doing.id}, as_=exec_user).status == 200
    assert sorted(_notices(db, mine)) == sorted(ids)
    assert api.delete(f"/api/tasks/{ids[0]}", as_=exec_user).status == 200
    assert _notices(db, mine) == [ids[1]]
