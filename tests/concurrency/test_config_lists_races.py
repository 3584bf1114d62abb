"""A config list item's update while another transaction deletes the item, against a real HTTP server on Postgres
(the server and helpers of test_concurrency.py; deterministic: the other transaction holds the item's row while the
request runs). The update waits on the item's row lock and, finding it gone, answers 404 and writes nothing (it
answered 500: its UPDATE matched no row)."""
from __future__ import annotations

import secrets

from sqlalchemy import delete

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_an_item_update_that_waited_for_its_delete_answers_404(live):
    from chalicelib.core.models import ConfigListItem
    from tests.areas.config_lists.factories import make_item, make_list
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        config_list = make_list(db)
        db.commit()
    token = _token(user)
    for body in ({"label": "Renamed"}, {"is_default": True}, {"value": "renamed"}):
        with sessions() as db:
            item = make_item(db, config_list)
            db.commit()
        # another request deleting the item, holding its row until it commits
        status, answer = while_held(
            sessions, delete(ConfigListItem).where(ConfigListItem.id == item.id),
            lambda: _call(base, "PUT", f"/api/config-lists/{config_list.key}/items/{item.id}", token, body))
        assert status == 404, (body, answer)
