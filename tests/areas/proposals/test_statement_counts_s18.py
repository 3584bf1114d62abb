"""Session 18: the daily proposal expiry costs the same statements whatever the number of proposals it expires
(docs/area-contract.md: no per-row statements)."""
from datetime import timedelta

from sqlalchemy import func, select

from chalicelib.areas.proposals import jobs
from chalicelib.areas.proposals.models import Proposal
from chalicelib.core.models import HistoryEntry
from chalicelib.core.timeutil import org_today
from tests.areas.proposals.factories import create


def _sent_past_due(api, db, user, past: str, size: int) -> list[str]:
    """`size` proposals valid until `past`, sent: the expiry's due rows."""
    ids = [create(api, user, valid_until=past) for _ in range(size)]
    for pid in ids:
        db.get(Proposal, pid).status = "sent"
    db.flush()
    return ids


def test_expiry_costs_the_same_statements_for_3_and_30_proposals(api, db, exec_user, count_queries, aws):
    # `aws` (session 25): the expiry now tells the owner; its deliveries go to the (moto) queue after commit, as
    # deployed, not sent inline (a send per delivery, outside the job's statements)
    past = (org_today() - timedelta(days=2)).isoformat()
    counts = []
    for size in (3, 30):
        ids = _sent_past_due(api, db, exec_user, past, size)
        with count_queries() as counter:
            assert jobs.proposal_expiry() == {"expired": size}
        counts.append(counter.count)
        db.expire_all()
        assert {db.get(Proposal, pid).status for pid in ids} == {"expired"}
        entries = db.execute(select(HistoryEntry.entity_id, HistoryEntry.changes).where(
            HistoryEntry.entity_type == "proposal", HistoryEntry.action == "expired",
            HistoryEntry.entity_id.in_(ids))).all()
        assert sorted(e for e, _ in entries) == sorted(ids)
        assert all(changes == {"status": {"from": "sent", "to": "expired"}, "valid_until": past}
                   for _, changes in entries)
    assert counts[0] == counts[1], counts
    assert db.scalar(select(func.count()).select_from(Proposal).where(Proposal.status == "expired")) >= 33


def test_expiry_sends_the_driver_the_same_statements_for_3_and_20(api, db, exec_user, driver_statements, aws):
    """The count above is SQLAlchemy's: an ORM flush of many changed rows is one `executemany` there, which pg8000
    sends row by row (jobs audit: 5 statements at 3 proposals, 22 at 20). Counted at the driver, the expiry is the
    same at any size: one read, one UPDATE, one INSERT of the history (session 25: then the owners' notices, a fixed
    number; `aws` queues their deliveries after commit as deployed)."""
    past = (org_today() - timedelta(days=2)).isoformat()
    counts = []
    for size in (3, 20):
        _sent_past_due(api, db, exec_user, past, size)
        statements, answer = driver_statements(jobs.proposal_expiry)
        assert answer == {"expired": size}
        counts.append(len(statements))
    assert counts[0] == counts[1], counts
