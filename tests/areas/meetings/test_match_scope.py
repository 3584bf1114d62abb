"""A meeting's match names its project only to a caller who sees that project: an attendee who is no member of it
read its name in `match.entity_name` while the project answered them 404 (conformance audit, scoping)."""
from tests.areas.meetings.factories import make_meeting
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


def test_meeting_detail_does_not_name_a_project_the_caller_cannot_see(api, db):
    owner = make_user(db)
    attendee = make_user(db)  # attends the meeting, is no member of the project
    grant(db, attendee, "meetings", "view")
    project = make_project(db, name="Confidential acquisition", owner_id=owner.id)
    meeting = make_meeting(db, attendees=[owner, attendee], entity_type="project", entity_id=project.id)
    assert api.get(f"/api/projects/{project.id}", as_=attendee).status == 404
    answer = api.get(f"/api/meetings/{meeting.id}", as_=attendee)
    assert answer.status == 200, answer
    assert answer.json["meeting"]["match"] == {"entity_type": "project", "entity_id": project.id, "entity_name": None}
    assert "Confidential acquisition" not in str(answer.json)
    # the owner, who sees the project, still reads its name
    grant(db, owner, "meetings", "view")
    assert api.get(f"/api/meetings/{meeting.id}", as_=owner).json["meeting"]["match"]["entity_name"] == \
        "Confidential acquisition"
