"""Attached links: list, create (icon from the domain), delete, reorder."""
import pytest

from tests.areas.tasks.factories import make_task
from tests.factories import grant, make_user


@pytest.mark.parametrize("url,icon", [
    ("https://www.figma.com/file/abc", "figma"),
    ("https://github.com/org/repo/pull/1", "code"),
    ("https://gitlab.com/org/repo", "code"),
    ("https://bitbucket.org/org/repo", "code"),
    ("https://docs.google.com/document/d/1", "document"),
    ("https://www.notion.so/page-1", "document"),
    ("https://acme.atlassian.net/wiki/spaces/X", "document"),
    ("https://acme.slack.com/archives/C1", "chat"),
    ("https://teams.microsoft.com/l/message/1", "chat"),
    ("https://www.loom.com/share/1", "video"),
    ("https://youtu.be/xyz", "video"),
    ("https://www.youtube.com/watch?v=1", "video"),
    ("https://vimeo.com/1", "video"),
    ("https://example.com/figma.com", "link"),
    ("https://notgithub.com/x", "link"),
])
def test_icon_is_derived_from_the_domain(api, db, exec_user, url, icon):
    task = make_task(db)
    response = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user, json={"url": url, "title": "T"})
    assert response.status == 201, response
    assert response.json["resource"]["icon"] == icon


def test_create_and_list_resources(api, db, exec_user):
    task = make_task(db)
    first = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user,
                     json={"url": "https://github.com/a/b", "title": "Repo", "description": "code"}).json["resource"]
    second = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user,
                      json={"url": "https://figma.com/f", "title": "Design"}).json["resource"]
    assert first["type"] == "link" and first["task_id"] == task.id and first["description"] == "code"
    assert first["created_by"] == exec_user.id and first["created_by_name"] == exec_user.name
    assert first["created_at"].endswith("Z")
    assert (first["sort_order"], second["sort_order"]) == (0, 1)
    listed = api.get(f"/api/tasks/{task.id}/resources", as_=exec_user)
    assert listed.status == 200
    assert [r["id"] for r in listed.json["resources"]] == [first["id"], second["id"]]
    assert listed.json["resources"][0]["created_by_name"] == exec_user.name


def test_create_resource_without_url_or_title_is_400(api, db, exec_user):
    task = make_task(db)
    url = f"/api/tasks/{task.id}/resources"
    assert api.post(url, as_=exec_user, json={"title": "t"}).status == 400
    assert api.post(url, as_=exec_user, json={"url": "https://a.b"}).status == 400
    assert api.post(url, as_=exec_user, json={"url": " ", "title": "t"}).status == 400
    assert api.post(url, as_=exec_user, json={"url": "javascript:alert(1)", "title": "t"}).status == 400


def test_a_malformed_url_is_400_not_500(api, db, exec_user):
    task = make_task(db)
    response = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user, json={"url": "http://[::1", "title": "t"})
    assert response.status == 400, response
    assert response.json["details"][0]["field"] == "url"


def test_delete_resource(api, db, exec_user):
    task, other = make_task(db), make_task(db)
    resource = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user,
                        json={"url": "https://a.com", "title": "a"}).json["resource"]
    assert api.delete(f"/api/tasks/{other.id}/resources/{resource['id']}", as_=exec_user).status == 404
    response = api.delete(f"/api/tasks/{task.id}/resources/{resource['id']}", as_=exec_user)
    assert response.status == 200 and response.json == {"ok": True}
    assert api.get(f"/api/tasks/{task.id}/resources", as_=exec_user).json["resources"] == []
    assert api.delete(f"/api/tasks/{task.id}/resources/{resource['id']}", as_=exec_user).status == 404


def test_reorder_resources(api, db, exec_user):
    task = make_task(db)
    made = [api.post(f"/api/tasks/{task.id}/resources", as_=exec_user,
                     json={"url": f"https://a.com/{i}", "title": str(i)}).json["resource"]["id"] for i in range(3)]
    response = api.put(f"/api/tasks/{task.id}/resources/reorder", as_=exec_user, json={"order": made[::-1]})
    assert response.status == 200 and response.json == {"ok": True}
    listed = api.get(f"/api/tasks/{task.id}/resources", as_=exec_user).json["resources"]
    assert [r["id"] for r in listed] == made[::-1]
    assert [r["sort_order"] for r in listed] == [0, 1, 2]


def test_reorder_with_empty_or_unknown_order_is_400(api, db, exec_user):
    task = make_task(db)
    url = f"/api/tasks/{task.id}/resources/reorder"
    assert api.put(url, as_=exec_user, json={"order": []}).status == 400
    assert api.put(url, as_=exec_user, json={}).status == 400
    assert api.put(url, as_=exec_user, json={"order": ["not-attached"]}).status == 400


def test_resources_of_missing_task_is_404(api, exec_user):
    assert api.get("/api/tasks/missing/resources", as_=exec_user).status == 404
    assert api.post("/api/tasks/missing/resources", as_=exec_user, json={"url": "https://a.b", "title": "t"}).status == 404


def test_resource_writes_need_update(api, db):
    viewer = make_user(db)
    grant(db, viewer, "tasks", "view")
    task = make_task(db, created_by=viewer.id)
    assert api.get(f"/api/tasks/{task.id}/resources", as_=viewer).status == 200
    assert api.post(f"/api/tasks/{task.id}/resources", as_=viewer,
                    json={"url": "https://a.b", "title": "t"}).status == 403
    assert api.put(f"/api/tasks/{task.id}/resources/reorder", as_=viewer, json={"order": ["x"]}).status == 403
    assert api.delete(f"/api/tasks/{task.id}/resources/x", as_=viewer).status == 403


def test_a_task_holds_at_most_500_links_so_the_list_never_cuts_one(api, db, exec_user, monkeypatch):
    from chalicelib.areas.tasks import service_links
    from tests.areas.tasks.factories import make_task

    monkeypatch.setattr(service_links, "MAX_RESOURCES", 3)
    task = make_task(db, created_by=exec_user.id)
    for number in range(3):
        created = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user,
                           json={"url": f"https://example.com/{number}", "title": f"Link {number}"})
        assert created.status == 201, created
    refused = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user,
                       json={"url": "https://example.com/4", "title": "One too many"})
    assert refused.status == 409 and "at most 3" in refused.json["error"]
    assert len(api.get(f"/api/tasks/{task.id}/resources", as_=exec_user).json["resources"]) == 3


def test_an_empty_reorder_names_order_in_details(api, db, exec_user):
    """decisions.md section 4: a validation error adds details [{field, message}]."""
    task = make_task(db)
    for body in ({"order": []}, {}, {"order": None}):
        response = api.put(f"/api/tasks/{task.id}/resources/reorder", as_=exec_user, json=body)
        assert response.status == 400 and response.json["details"] == [
            {"field": "order", "message": "must be a non-empty list of resource ids"}], (body, response)
