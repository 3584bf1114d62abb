"""Session 29 (decisions versus code audit): docs/decisions/meetings.md says a matched project's `entity_name` is null
to a caller who does not see the project, and a match names "a project the caller can see" (400 otherwise). The
project was checked by its row scope only: a reader whose `projects` permission is none (an override; a head sees
every project's row) was told the project's name in the meeting's detail, and could match a meeting to it, though
every project route answers them 403. Now the project is seen only with `projects:view` as well, as session 28 did
for deals, companies and contacts with the `deals` tool."""
from tests.areas.meetings.factories import make_meeting
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


def test_a_project_is_not_named_to_a_reader_who_may_not_view_projects(api, db):
    head = make_user(db, access_level="head")
    grant(db, head, "projects", "none")  # an override: this head may not view projects
    project = make_project(db, name="Secret rebrand")
    meeting = make_meeting(db, entity_type="project", entity_id=project.id)
    assert api.get(f"/api/projects/{project.id}", as_=head).status == 403
    answer = api.get(f"/api/meetings/{meeting.id}", as_=head)
    assert answer.status == 200, answer
    assert answer.json["meeting"]["match"] == {"entity_type": "project", "entity_id": project.id, "entity_name": None}
    assert "Secret rebrand" not in str(answer.json)


def test_a_reader_who_may_not_view_projects_cannot_match_to_one(api, db):
    head = make_user(db, access_level="head")
    grant(db, head, "projects", "none")
    project = make_project(db, name="Secret rebrand")
    meeting = make_meeting(db)
    refused = api.post(f"/api/meetings/{meeting.id}/match", as_=head,
                       json={"entity_type": "project", "entity_id": project.id})
    assert refused.status == 400, refused
    assert refused.json["details"][0]["field"] == "entity_id"
    # with projects:view the same head matches and is told the name
    grant(db, head, "projects", "view")
    matched = api.post(f"/api/meetings/{meeting.id}/match", as_=head,
                       json={"entity_type": "project", "entity_id": project.id})
    assert matched.status == 200, matched
    assert matched.json["meeting"]["match"]["entity_name"] == "Secret rebrand"
