"""The scheduled job proposal-expiry through the Lambda handler and the CLI: one effect when run twice
(developers' guide, scheduled jobs)."""
import json
from datetime import timedelta

from sqlalchemy import func, select

from chalicelib.areas.proposals.models import Proposal
from chalicelib.core.models import HistoryEntry
from chalicelib.core.timeutil import org_today
from tests.areas.proposals.factories import create, sent


def _seed(api, db, user):
    """Past valid_until in sent, viewed and review (expire); past in draft and accepted, future in sent (kept).
    A date that has passed is set on the rows: the API refuses to send or submit such a proposal (session 28), so
    these are proposals whose date passed after they were sent."""
    past = org_today() - timedelta(days=2)
    future = (org_today() + timedelta(days=5)).isoformat()
    due = [sent(api, user, valid_until=future), sent(api, user, valid_until=future),
           create(api, user, valid_until=past.isoformat())]
    db.get(Proposal, due[1]).status = "viewed"
    db.get(Proposal, due[2]).status = "review"
    draft = create(api, user, valid_until=past.isoformat())
    accepted = sent(api, user, valid_until=future)
    db.get(Proposal, accepted).status = "accepted"
    for pid in (due[0], due[1], accepted):
        db.get(Proposal, pid).valid_until = past
    kept = {draft: "draft", accepted: "accepted", sent(api, user, valid_until=future): "sent"}
    db.flush()
    return due, kept


def _expiry_entries(db, ids):
    return db.scalar(select(func.count()).select_from(HistoryEntry).where(
        HistoryEntry.entity_type == "proposal", HistoryEntry.action == "expired", HistoryEntry.entity_id.in_(ids)))


def _assert_one_effect(db, due, kept):
    db.expire_all()
    assert [db.get(Proposal, pid).status for pid in due] == ["expired"] * 3
    assert {pid: db.get(Proposal, pid).status for pid in kept} == kept
    assert _expiry_entries(db, due + list(kept)) == 3  # one history entry each, none the second run


def test_proposal_expiry_through_the_scheduled_handler(api, db, client, exec_user):
    due, kept = _seed(api, db, exec_user)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("proposal_expiry", event).payload == {"expired": 3}
    assert client.lambda_.invoke("proposal_expiry", event).payload == {"expired": 0}
    _assert_one_effect(db, due, kept)
    assert api.get(f"/api/proposals/{due[0]}", as_=exec_user).json["proposal"]["status"] == "expired"


def test_proposal_expiry_through_the_cli(api, db, exec_user, capsys):
    from chalicelib import cli

    due, kept = _seed(api, db, exec_user)
    assert cli.main(["job", "proposal-expiry"]) == 0
    assert json.loads(capsys.readouterr().out) == {"expired": 3}
    assert cli.main(["job", "proposal-expiry"]) == 0
    assert json.loads(capsys.readouterr().out) == {"expired": 0}
    _assert_one_effect(db, due, kept)
