"""Session 28 (dates audit): a proposal must not enter, or be kept in, a status the hourly expiry job expires (review,
approved, sent, viewed) with a valid_until already passed: the job would make it `expired`, a final status, within
the hour. An update of such a proposal to a past date is a 400, a move into those statuses a 409, and a duplicate
leaves out a date already passed (docs/decisions/proposals.md, session 28)."""
from datetime import timedelta

from chalicelib.areas.proposals.models import Proposal
from chalicelib.core.timeutil import org_today
from tests.areas.proposals.factories import create, sent


def _run_expiry(client) -> dict:
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    return client.lambda_.invoke("proposal_expiry", event).payload


def _proposal(api, user, pid) -> dict:
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]


def _days(n: int) -> str:
    return (org_today() + timedelta(days=n)).isoformat()


def _set_passed(db, pid) -> None:
    """The proposal's valid_until passed since it reached its status (yesterday)."""
    db.get(Proposal, pid).valid_until = org_today() - timedelta(days=1)
    db.flush()


def test_a_sent_proposal_given_a_past_valid_until_is_refused_and_stays_sent(api, db, client, exec_user):
    pid = sent(api, exec_user, valid_until=_days(30))
    typo = (org_today() - timedelta(days=365 - 30)).isoformat()  # last year's date for next month
    answer = api.put(f"/api/proposals/{pid}", as_=exec_user, json={"valid_until": typo})
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == ["valid_until"]
    assert _run_expiry(client) == {"expired": 0}
    detail = _proposal(api, exec_user, pid)
    assert (detail["status"], detail["valid_until"]) == ("sent", _days(30))


def test_a_sent_proposal_may_move_valid_until_to_today(api, db, exec_user):
    pid = sent(api, exec_user, valid_until=_days(30))
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"valid_until": _days(0)}).status == 200
    assert _proposal(api, exec_user, pid)["valid_until"] == _days(0)


def test_a_draft_may_hold_a_past_valid_until(api, db, exec_user):
    pid = create(api, exec_user)
    assert api.put(f"/api/proposals/{pid}", as_=exec_user, json={"valid_until": _days(-3)}).status == 200
    assert _proposal(api, exec_user, pid)["valid_until"] == _days(-3)


def test_submitting_a_proposal_whose_valid_until_has_passed_is_refused(api, db, exec_user):
    pid = create(api, exec_user, valid_until=_days(-3))
    answer = api.post(f"/api/proposals/{pid}/submit", as_=exec_user, json={})
    assert answer.status == 409, answer
    assert [d["field"] for d in answer.json["details"]] == ["valid_until"]
    assert _proposal(api, exec_user, pid)["status"] == "draft"


def test_approving_a_proposal_whose_valid_until_passed_in_review_is_refused(api, db, exec_user):
    pid = create(api, exec_user, valid_until=_days(2))
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user, json={}).status == 200
    _set_passed(db, pid)
    answer = api.post(f"/api/proposals/{pid}/approve", as_=exec_user, json={})
    assert answer.status == 409, answer
    assert _proposal(api, exec_user, pid)["status"] == "review"


def test_marking_sent_a_proposal_whose_valid_until_passed_once_approved_is_refused(api, db, exec_user):
    pid = create(api, exec_user, valid_until=_days(2))
    for step in ("submit", "approve"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={}).status == 200, step
    _set_passed(db, pid)
    answer = api.post(f"/api/proposals/{pid}/mark-sent", as_=exec_user, json={})
    assert answer.status == 409, answer
    assert _proposal(api, exec_user, pid)["status"] == "approved"


def test_a_duplicate_leaves_out_a_valid_until_already_passed(api, db, exec_user):
    old = create(api, exec_user, valid_until=_days(-3))
    copy = api.post(f"/api/proposals/{old}/duplicate", as_=exec_user, json={})
    assert copy.status == 201, copy
    assert _proposal(api, exec_user, copy.json["proposal"]["id"])["valid_until"] is None


def test_a_duplicate_keeps_a_valid_until_still_to_come(api, db, exec_user):
    source = create(api, exec_user, valid_until=_days(0))
    copy = api.post(f"/api/proposals/{source}/duplicate", as_=exec_user, json={})
    assert _proposal(api, exec_user, copy.json["proposal"]["id"])["valid_until"] == _days(0)


def test_a_submitted_duplicate_of_an_old_proposal_is_not_expired(api, db, client, exec_user):
    old = create(api, exec_user, valid_until=_days(-3))
    cid = api.post(f"/api/proposals/{old}/duplicate", as_=exec_user, json={}).json["proposal"]["id"]
    assert api.post(f"/api/proposals/{cid}/submit", as_=exec_user, json={}).status == 200
    assert _run_expiry(client) == {"expired": 0}
    assert _proposal(api, exec_user, cid)["status"] == "review"
