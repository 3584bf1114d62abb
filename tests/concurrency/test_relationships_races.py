"""Races of the relationships area against a real HTTP server on Postgres (the server and helpers of
test_concurrency.py)."""
from __future__ import annotations

import secrets

from sqlalchemy import update

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_message_that_waited_for_a_dismissal_leaves_the_action_dismissed(live):
    """A message sent with `auto_action_id` while another request dismisses that action: the message waits for
    the dismissal and finds the action no longer pending, so it leaves it dismissed, as a message sent after the
    dismissal does (it used to overwrite the dismissal with `done`)."""
    from chalicelib.areas.relationships.models import RelationshipAction, RelationshipProfile
    from tests.areas.deals.factories import make_contact
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        contact = make_contact(db, phone="+61412345678")
        db.add(RelationshipProfile(contact_id=contact.id, phone_number="+61412345678", interests=[], sms_opt_in=True))
        action = RelationshipAction(contact_id=contact.id, title="Call about the renewal", action_type="call",
                                    status="pending", is_auto=False, assigned_to_user_id=user.id, created_by=user.id)
        db.add(action)
        db.commit()
    # another request dismissing the action, holding its row until it commits
    status, body = while_held(
        sessions, update(RelationshipAction).where(RelationshipAction.id == action.id).values(status="dismissed"),
        lambda: _call(base, "POST", f"/api/relationships/contacts/{contact.id}/messages", _token(user),
                      {"channel": "sms", "body": "Happy to talk", "auto_action_id": action.id}))
    assert status == 201, body
    with sessions() as db:
        stored = db.get(RelationshipAction, action.id)
        assert (stored.status, stored.completed_at) == ("dismissed", None)
