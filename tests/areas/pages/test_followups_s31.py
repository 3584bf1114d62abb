"""Session 31, round 2 (decided follow-ups of the invariants audit): an archived page has no live children. A PATCH
archive detaches the page's children to the root as a DELETE does (the spec: "Deleting a page archives it and
detaches its children to root level"; the same state reached by update), and a restore of a page whose parent is
archived moves it to the root, since it cannot live under an archived page."""
import pytest

from tests.concurrency.conftest import live  # noqa: F401 - the live server fixture (the race below)
from tests.concurrency.test_concurrency import _call, _token, executive
from tests.factories import make_user

from .factories import make_page
from .test_invariants_s31 import detaches_a_child_created_meanwhile


@pytest.fixture
def user(db):
    return make_user(db, name="Ari Archivist")


def _page(api, user, page_id):
    return api.get(f"/api/pages/{page_id}", as_=user).json["page"]


def test_archiving_by_patch_detaches_the_children_to_the_root(api, db, user):
    make_page(db, title="Existing root", position=7)
    parent = make_page(db, title="Shelved", position=1)
    second = make_page(db, title="B second", parent_id=parent.id, position=2)
    first = make_page(db, title="A first", parent_id=parent.id, position=1)
    answer = api.patch(f"/api/pages/{parent.id}", as_=user, json={"is_archived": 1})
    assert answer.status == 200, answer.json
    assert answer.json["page"]["is_archived"] == 1 and answer.json["page"]["updated_by"] == user.id
    placed = [_page(api, user, child.id) for child in (first, second)]
    assert [(child["parent_id"], child["position"]) for child in placed] == [(None, 8), (None, 9)]
    # both are in the tree again, at the root after the existing root page, in their previous order
    listed = [(item["title"], item["parent_id"]) for item in api.get("/api/pages", as_=user).json["pages"]]
    assert listed == [("Existing root", None), ("A first", None), ("B second", None)]


def test_archiving_and_moving_to_the_root_at_once_gives_distinct_positions(api, db, user):
    top = make_page(db, title="Top", position=4)
    page = make_page(db, title="Nested", parent_id=top.id, position=0)
    child = make_page(db, title="Its child", parent_id=page.id, position=0)
    answer = api.patch(f"/api/pages/{page.id}", as_=user, json={"is_archived": 1, "parent_id": None})
    assert answer.status == 200, answer.json
    assert (answer.json["page"]["parent_id"], answer.json["page"]["position"]) == (None, 5)
    moved = _page(api, user, child.id)
    assert (moved["parent_id"], moved["position"]) == (None, 6)


def test_restoring_a_page_under_an_archived_parent_moves_it_to_the_root(api, db, user):
    make_page(db, title="Root", position=3)
    parent = make_page(db, title="Archived parent", is_archived=True, position=0)
    page = make_page(db, title="Archived child", parent_id=parent.id, is_archived=True, position=0)
    answer = api.patch(f"/api/pages/{page.id}", as_=user, json={"is_archived": 0})
    assert answer.status == 200, answer.json
    restored = answer.json["page"]
    assert (restored["is_archived"], restored["parent_id"], restored["position"]) == (0, None, 4)
    assert "Archived child" in [item["title"] for item in api.get("/api/pages", as_=user).json["pages"]]


def test_a_restore_sending_the_archived_parent_back_still_goes_to_the_root(api, db, user):
    """A client saving back the page as read (its parent_id unchanged) with the flag cleared: the same restore."""
    parent = make_page(db, title="Archived parent", is_archived=True)
    page = make_page(db, title="Archived child", parent_id=parent.id, is_archived=True)
    answer = api.patch(f"/api/pages/{page.id}", as_=user,
                       json={"is_archived": 0, "parent_id": parent.id, "position": 2})
    assert answer.status == 200, answer.json
    assert (answer.json["page"]["parent_id"], answer.json["page"]["position"]) == (None, 2)


def test_legitimate_archive_and_restore_flows_are_unchanged(api, db, user):
    """Guards: a restore under a live parent stays there; a restore that moves the page under a live page goes
    there; archiving a page without children, and a page edited under an archived parent without a restore, keep
    their place."""
    parent = make_page(db, title="Live parent")
    kept = make_page(db, title="Kept", parent_id=parent.id, is_archived=True, position=3)
    answer = api.patch(f"/api/pages/{kept.id}", as_=user, json={"is_archived": 0})
    assert (answer.status, answer.json["page"]["parent_id"], answer.json["page"]["position"]) == (200, parent.id, 3)

    archived = make_page(db, title="Archived parent", is_archived=True)
    elsewhere = make_page(db, title="Going elsewhere", parent_id=archived.id, is_archived=True)
    answer = api.patch(f"/api/pages/{elsewhere.id}", as_=user, json={"is_archived": 0, "parent_id": parent.id})
    assert (answer.status, answer.json["page"]["parent_id"]) == (200, parent.id)

    left = make_page(db, title="Left", parent_id=archived.id)
    assert api.patch(f"/api/pages/{left.id}", as_=user, json={"title": "Edited"}).json["page"]["parent_id"] == archived.id

    leaf = make_page(db, title="Leaf", parent_id=parent.id)
    answer = api.patch(f"/api/pages/{leaf.id}", as_=user, json={"is_archived": 1})
    assert (answer.status, answer.json["page"]["parent_id"], answer.json["page"]["is_archived"]) == (200, parent.id, 1)


@pytest.mark.skipif("os.environ.get('WMS_TEST_DB') == 'sqlite'")
def test_an_archive_that_waited_for_a_create_under_it_detaches_the_new_child(live):  # noqa: F811
    """The PATCH archive takes the children's key before reading them, as a delete does: a create under the page that
    commits first is detached with the rest (and one that waits finds the parent archived: the invariants test)."""
    detaches_a_child_created_meanwhile(live, "PATCH", {"is_archived": 1})


def test_archiving_and_moving_to_the_root_at_a_sent_position_places_the_children_after_it(api, db, user):
    """Session 31's second review: with a `position` sent, the children detached by the archive go after that
    position (they went after the page's old one, which the sent position then overtook)."""
    top = make_page(db, title="Top")
    page = make_page(db, title="Shelved", parent_id=top.id)
    child = make_page(db, title="Child", parent_id=page.id)
    answer = api.patch(f"/api/pages/{page.id}", as_=user, json={"is_archived": 1, "parent_id": None, "position": 50})
    assert answer.status == 200, answer.json
    placed = _page(api, user, child.id)
    assert placed["parent_id"] is None and placed["position"] > 50, placed


@pytest.mark.skipif("os.environ.get('WMS_TEST_DB') == 'sqlite'")
def test_an_archive_moving_to_the_root_and_a_delete_of_the_page_take_turns(live):  # noqa: F811
    """Session 31's second review: an archive that also moves the page to the root took the root's key before the
    page's children's, a delete of the page the other way round: they deadlocked (Postgres 40P01, answered 409).
    Here a transaction holds what a delete takes first (the page's children's key) and then wants the root's."""
    import threading
    import time

    from chalicelib.core.locks import lock_key

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        top = make_page(db, title="Top")
        page = make_page(db, title="P", parent_id=top.id)
        make_page(db, title="C", parent_id=page.id)
        db.commit()
        page_id = page.id
    answers, refused = [], []
    with sessions() as other:
        lock_key(other, "pages", page_id)  # a DELETE of the page: its children's key first
        thread = threading.Thread(target=lambda: answers.append(
            _call(base, "PATCH", f"/api/pages/{page_id}", token, {"is_archived": 1, "parent_id": None})))
        thread.start()
        time.sleep(1.5)
        try:
            lock_key(other, "pages", None, None, None)  # then the root's, for the children it detaches
            other.commit()
        except Exception as exc:  # noqa: BLE001 - a deadlock chose this transaction
            refused.append(repr(exc)[:200])
            other.rollback()
    thread.join(30)
    assert not refused and answers and answers[0][0] == 200, (answers, refused)
