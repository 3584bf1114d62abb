"""Who submitted a portal note or request is the portal user the portal names in X-Portal-User-Id (set from its own
session); a body's portalUserId (document 3 lists it) counts only without the header. A collaborator could put
another user of the company in the body: the note or request was recorded as theirs, and the agency's reply or
status change was notified to them (audit S1)."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalSubmission
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project


def _submitter(db, record_type, record_id):
    return db.scalar(select(PortalSubmission.portal_user_id).where(PortalSubmission.record_type == record_type,
                                                                   PortalSubmission.record_id == record_id))


def test_the_header_names_the_submitter_not_the_body(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    note = portal.post("/notes", mine, role="collaborator", user="pu-1", json={
        "resourceType": "project", "resourceId": project.id, "content": "Looks good", "portalUserId": "pu-victim"})
    assert note.status == 201, note
    assert _submitter(db, "note", note.json["id"]) == "pu-1"
    request = portal.post("/requests", mine, role="collaborator", user="pu-1", json={
        "title": "Checkout broken", "projectId": project.id, "portalUserId": "pu-victim"})
    assert request.status == 201, request
    assert _submitter(db, "task", request.json["taskId"]) == "pu-1"


def test_the_body_names_the_submitter_without_the_header(portal, db):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    note = portal.post("/notes", mine, role="collaborator", user=None, json={
        "resourceType": "project", "resourceId": project.id, "content": "Looks good", "portalUserId": "pu-3"})
    assert note.status == 201, note
    assert _submitter(db, "note", note.json["id"]) == "pu-3"
