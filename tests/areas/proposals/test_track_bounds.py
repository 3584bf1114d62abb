"""Session 22: the public track cannot grow a proposal's analytics without bound. slide_index is below 500 (the
slides the analytics list shows; the server cannot know the viewer's slide count), and at most 1,000 distinct
sessions per proposal are recorded: a new session's track past that is answered `{ ok: true }` and ignored."""
from sqlalchemy import func, select

from chalicelib.areas.proposals.models import ProposalView
from chalicelib.core.locks import insert_rows
from tests.areas.proposals.factories import sent
from tests.areas.proposals.test_public import PUBLIC, share

MAX_SESSIONS = 1000


def _track(api, token, session, slide=0, delta=1.0):
    return api.post(f"{PUBLIC}/{token}/track", json={"session_id": session, "slide_index": slide,
                                                     "duration_delta": delta})


def _rows(db, pid, *conditions):
    return db.scalar(select(func.count()).select_from(ProposalView).where(ProposalView.proposal_id == pid,
                                                                         *conditions))


def test_slide_index_is_bounded(api, db, exec_user):
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid)
    assert _track(api, token, "a", 499).status == 200
    for slide in (500, 10_000):
        answer = _track(api, token, "a", slide)
        assert answer.status == 400 and "slide_index" in str(answer.json), answer
    assert _rows(db, pid) == 1


def test_distinct_sessions_are_capped(api, db, exec_user):
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid)
    insert_rows(db, ProposalView, [{"proposal_id": pid, "session_id": f"old-{i}", "slide_index": 0,
                                    "duration_seconds": 1.0, "events": 1} for i in range(MAX_SESSIONS - 1)])
    last = _track(api, token, "the-last-one", 0, 2)
    assert last.status == 200 and last.json == {"ok": True}
    assert _rows(db, pid, ProposalView.session_id == "the-last-one") == 1
    # the cap reached: a new session is answered as usual (the viewer's beacon is not broken) and not recorded
    for i in range(3):
        ignored = _track(api, token, f"flood-{i}", i, 3600)
        assert ignored.status == 200 and ignored.json == {"ok": True}, ignored
    assert _rows(db, pid, ProposalView.session_id.like("flood-%")) == 0
    # a session already recorded keeps tracking, on a slide it had not seen too
    assert _track(api, token, "the-last-one", 0, 3).status == 200
    assert _track(api, token, "old-1", 7, 4).status == 200
    assert db.scalar(select(ProposalView.duration_seconds).where(
        ProposalView.proposal_id == pid, ProposalView.session_id == "the-last-one")) == 5.0
    assert _rows(db, pid, ProposalView.session_id == "old-1") == 2
    analytics = api.get(f"/api/proposals/{pid}/analytics", as_=exec_user).json
    assert analytics["total_sessions"] == MAX_SESSIONS
    # another proposal has its own cap
    other = share(api, exec_user, sent(api, exec_user))
    assert _track(api, other, "flood-0").status == 200
    assert db.scalar(select(func.count()).select_from(ProposalView).where(ProposalView.session_id == "flood-0")) == 1


def test_track_statements_do_not_grow_with_the_sessions(api, db, exec_user, count_queries):
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid)
    counts = []
    for n in (5, 200):
        insert_rows(db, ProposalView, [{"proposal_id": pid, "session_id": f"s{n}-{i}", "slide_index": i % 50,
                                        "duration_seconds": 1.0, "events": 1} for i in range(n)])
        with count_queries() as new:
            assert _track(api, token, f"new-{n}").status == 200
        with count_queries() as known:
            assert _track(api, token, f"s{n}-0", 1).status == 200
        counts.append((new.count, known.count))
    assert counts[0] == counts[1], counts
