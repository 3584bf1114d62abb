"""An SLA policy update while another transaction deletes the policy, against a real HTTP server on Postgres (the
server and helpers of test_concurrency.py; deterministic: the other transaction holds the row while the request
runs). The update waits on the policy's row lock and, finding the policy gone, answers 404 and writes nothing
(it answered 500 from an UPDATE matching no row, or 400 from its rules' foreign key)."""
from __future__ import annotations

import secrets

from sqlalchemy import delete, select

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _update_while_deleted(base, sessions, token, body) -> list:
    from chalicelib.areas.sla.models import SlaPolicy

    with sessions() as db:
        policy = SlaPolicy(name="Gold")
        db.add(policy)
        db.commit()
    # another request deleting the policy, holding its row until it commits
    return [while_held(sessions, delete(SlaPolicy).where(SlaPolicy.id == policy.id),
                       lambda: _call(base, "PUT", f"/api/sla/policies/{policy.id}", token, body))]


def test_an_update_that_waited_for_a_delete_answers_404(live):
    from chalicelib.core.models import ConfigList, ConfigListItem
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        db.commit()
        priority_id = db.scalar(select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
                                .where(ConfigList.key == "task_priority").limit(1))
    token = _token(user)
    for body in ({"name": "Gold+"},
                 {"rules": [{"priority_id": priority_id, "response_hours": 1, "resolution_hours": 4}]}):
        answers = _update_while_deleted(base, sessions, token, body)
        assert [status for status, _ in answers] == [404], answers
