"""A link's host written another way (session 32, "the same thing written two ways" audit).

A link's icon comes from its host (docs/decisions/tasks.md). A host in capitals was already the same host (URLs
lower-case it), and `www.` was dropped; a fully qualified host with its trailing dot (`github.com.`, which browsers
open as github.com) was another host, and the link got the plain `link` icon. The trailing dot is now dropped too."""
import pytest

from tests.areas.tasks.factories import make_task


@pytest.mark.parametrize("url,icon", [
    ("https://github.com./org/repo", "code"),
    ("https://WWW.Figma.com./file/abc", "figma"),
    ("https://acme.atlassian.net./wiki/spaces/X", "document"),
    ("https://notgithub.com./x", "link"),
])
def test_a_host_with_its_trailing_dot_is_the_same_host(api, db, exec_user, url, icon):
    task = make_task(db)
    response = api.post(f"/api/tasks/{task.id}/resources", as_=exec_user, json={"url": url, "title": "T"})
    assert response.status == 201, response.json
    assert response.json["resource"]["icon"] == icon
    assert response.json["resource"]["url"] == url  # kept as given
