"""Session 31 (invariants audit): a page deleted or archived is out of the page tree (the spec: deleting a page
archives it and detaches its children to the root), so no route may place a page under an archived one."""
import pytest
from sqlalchemy import select, update

from tests.concurrency.conftest import live  # noqa: F401 - the live server fixture (the races below)
from tests.concurrency.test_concurrency import _call, _token, executive, while_held
from tests.factories import make_user

from .factories import make_page


@pytest.fixture
def user(db):
    return make_user(db, name="Ari Archivist")


def test_create_under_an_archived_parent_is_a_409(api, db, user):
    parent = make_page(db, title="Old handbook")
    head = make_user(db, access_level="head")
    assert api.delete(f"/api/pages/{parent.id}", as_=head).status == 200  # archived, out of the tree
    answer = api.post("/api/pages", as_=user, json={"title": "Orphan", "parent_id": parent.id})
    assert answer.status == 409, answer.json
    assert answer.json["error"] == "Parent page is archived: restore it first"
    assert answer.json["details"] == [{"field": "parent_id", "message": "is an archived page"}]
    # nothing was written; a live parent still takes children
    assert api.get("/api/pages", as_=user).json["total"] == 0
    handbook = make_page(db, title="Live handbook")
    assert api.post("/api/pages", as_=user, json={"parent_id": handbook.id}).status == 201


def test_move_under_an_archived_parent_is_a_409(api, db, user):
    archived = make_page(db, title="Archived", is_archived=True)
    page = make_page(db, title="Roaming")
    answer = api.patch(f"/api/pages/{page.id}", as_=user, json={"parent_id": archived.id})
    assert answer.status == 409, answer.json
    assert answer.json["error"] == "Parent page is archived: restore it first"
    with_position = api.patch(f"/api/pages/{page.id}", as_=user, json={"parent_id": archived.id, "position": 3})
    assert with_position.status == 409, with_position.json
    assert api.get(f"/api/pages/{page.id}", as_=user).json["page"]["parent_id"] is None


def test_legitimate_flows_around_an_archived_parent_still_pass(api, db, user):
    """Taking a child out of an archived parent, editing a child left there, restoring the parent, and then moving
    under it again are all allowed."""
    parent = make_page(db, title="Parent", is_archived=True)
    left = make_page(db, title="Left under it", parent_id=parent.id)
    assert api.patch(f"/api/pages/{left.id}", as_=user, json={"title": "Still editable"}).status == 200
    assert api.patch(f"/api/pages/{left.id}", as_=user, json={"parent_id": parent.id, "title": "Same"}).status == 200
    assert api.patch(f"/api/pages/{left.id}", as_=user, json={"parent_id": None}).json["page"]["parent_id"] is None
    assert api.patch(f"/api/pages/{parent.id}", as_=user, json={"is_archived": 0}).status == 200
    moved = api.patch(f"/api/pages/{left.id}", as_=user, json={"parent_id": parent.id})
    assert moved.status == 200 and moved.json["page"]["parent_id"] == parent.id


def test_deleting_an_archived_page_again_changes_nothing(api, db, user):
    """A delete archives the page; a second one (the page archived already, nothing left under it) is no edit: the
    page keeps its last editor and time (session 25's rule: a write that changes nothing is no edit). It named the
    second caller the page's last editor and moved updated_at."""
    author, head = make_user(db, access_level="head"), make_user(db, access_level="head", name="Second Deleter")
    page = make_page(db, title="Gone")
    assert api.delete(f"/api/pages/{page.id}", as_=author).status == 200
    first = api.get(f"/api/pages/{page.id}", as_=user).json["page"]
    assert first["is_archived"] == 1 and first["updated_by"] == author.id
    assert api.delete(f"/api/pages/{page.id}", as_=head).json == {"ok": True}
    again = api.get(f"/api/pages/{page.id}", as_=user).json["page"]
    assert (again["updated_by"], again["updated_at"]) == (author.id, first["updated_at"])


def test_deleting_a_page_archived_by_patch_detaches_its_children(api, db, user):
    """A page archived by PATCH with children still under it (left there before session 31's round 2, since which a
    PATCH archive detaches them too: tests/areas/pages/test_followups_s31.py); its DELETE detaches them to the root,
    as the spec says of every delete, without naming the deleter the archived page's editor."""
    from chalicelib.areas.pages.models import Page

    head = make_user(db, access_level="head")
    parent = make_page(db, title="Shelved")
    child = make_page(db, title="Kept")
    assert api.patch(f"/api/pages/{parent.id}", as_=user, json={"is_archived": 1}).status == 200
    db.execute(update(Page).where(Page.id == child.id).values(parent_id=parent.id))  # the state left before
    stamp = api.get(f"/api/pages/{parent.id}", as_=user).json["page"]
    assert api.get(f"/api/pages/{child.id}", as_=user).json["page"]["parent_id"] == parent.id
    assert api.delete(f"/api/pages/{parent.id}", as_=head).status == 200
    assert api.get(f"/api/pages/{child.id}", as_=user).json["page"]["parent_id"] is None
    after = api.get(f"/api/pages/{parent.id}", as_=user).json["page"]
    assert (after["updated_by"], after["updated_at"]) == (user.id, stamp["updated_at"])


# --- races with a delete of the parent, against the live server (tests/concurrency), Postgres only ----------------

def _delete_in_flight(parent_id):
    """What a DELETE of the parent holds until it commits: the parent's children's key, then the archived flag."""
    from chalicelib.areas.pages.models import Page
    from chalicelib.core.locks import lock_key

    def hold(db):
        lock_key(db, "pages", parent_id)
        db.execute(update(Page).where(Page.id == parent_id).values(is_archived=True))
    return hold


def live_parent(live):  # noqa: F811
    """(base url, sessions, an executive's token, a committed page's id) on the live server."""
    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        parent = make_page(db)
        db.commit()
        return base, sessions, token, parent.id


def detaches_a_child_created_meanwhile(live, method: str, body: dict | None = None) -> None:  # noqa: F811
    """`method` on a page (a DELETE, or a PATCH archive with `body`), run while a create under it is in flight (the
    create holds the page's children's key, then its row), waits for the create and detaches its child to the root."""
    from chalicelib.areas.pages.models import Page
    from chalicelib.core.locks import lock_key

    base, sessions, token, parent_id = live_parent(live)
    made = {}

    def create_in_flight(db):
        lock_key(db, "pages", parent_id)
        made["child"] = make_page(db, parent_id=parent_id).id

    status, answer = while_held(sessions, create_in_flight,
                                lambda: _call(base, method, f"/api/pages/{parent_id}", token, body))
    assert status == 200, answer
    with sessions() as db:
        assert db.scalar(select(Page.parent_id).where(Page.id == made["child"])) is None


@pytest.mark.skipif("os.environ.get('WMS_TEST_DB') == 'sqlite'")
def test_a_create_that_waited_for_the_parents_delete_is_a_409(live):  # noqa: F811
    base, sessions, token, parent_id = live_parent(live)
    status, body = while_held(sessions, _delete_in_flight(parent_id),
                              lambda: _call(base, "POST", "/api/pages", token, {"parent_id": parent_id}))
    assert (status, body.get("error")) == (409, "Parent page is archived: restore it first"), body


@pytest.mark.skipif("os.environ.get('WMS_TEST_DB') == 'sqlite'")
def test_a_delete_that_waited_for_a_create_under_it_detaches_the_new_child(live):  # noqa: F811
    detaches_a_child_created_meanwhile(live, "DELETE")
