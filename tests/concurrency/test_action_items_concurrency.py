"""Completing an action item while another transaction completes it, against a real HTTP server on Postgres (the
server and helpers of test_concurrency.py): the request waits for the other and finds the item completed, so the
item's source is not asked to unstar it a second time."""
from __future__ import annotations

import secrets

from sqlalchemy import update

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_completion_that_waited_for_another_does_not_ask_the_source_again(live):
    from chalicelib.areas.action_items.models import ActionItem
    from chalicelib.core.notify_outbox import messages
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        item = ActionItem(title="Reply to the client", source_module="chat", source_type="message",
                          source_id="C1/1700000000.000100", assigned_to=user.id, urgency="normal", is_completed=False)
        db.add(item)
        db.commit()
    # another completion, holding the item's row until it commits
    answer = while_held(sessions, update(ActionItem).where(ActionItem.id == item.id).values(is_completed=True),
                        lambda: _call(base, "POST", f"/api/action-items/{item.id}/complete", _token(user)))
    assert answer == (200, {"ok": True})
    with sessions() as db:
        asked = [m.payload for m in messages(db, provider="business_agent")
                 if m.target == "actions" and m.payload["args"]["action_item_id"] == item.id]
    assert asked == []  # the other completion was the one that changed it
