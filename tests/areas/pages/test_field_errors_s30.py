"""Session 30 (audit: the same situation answered the same way). A 400 about a field of the body names it in
`details` (decisions.md section 4), as the pages area's other refusals of parent_id and the core's wrong types do.
A discussion or comment id that is not a UUID, and a page moved under itself or its own sub-page, answered with the
message alone."""
from tests.areas.pages.factories import make_page
from tests.factories import grant, make_user


def _writer(db):
    user = make_user(db, access_level="employee")
    grant(db, user, "pages", "update")
    return user


def test_a_discussion_id_that_is_not_a_uuid_names_id(api, db):
    page = make_page(db)
    response = api.post(f"/api/pages/{page.id}/discussions", as_=_writer(db),
                        json={"id": "not-a-uuid", "comment": "Looks good"})
    assert response.status == 400, response
    assert response.json["error"] == "id must be a UUID"
    assert [detail["field"] for detail in response.json["details"]] == ["id"]


def test_a_page_moved_under_its_own_sub_page_names_parent_id(api, db):
    writer = _writer(db)
    page = make_page(db)
    child = make_page(db, parent_id=page.id)
    for parent in (page, child):
        response = api.patch(f"/api/pages/{page.id}", as_=writer, json={"parent_id": parent.id})
        assert response.status == 400, response
        assert [detail["field"] for detail in response.json["details"]] == ["parent_id"]
