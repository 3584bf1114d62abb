"""A config list item's update while another transaction deletes the item, against a real HTTP server on Postgres
(the server and helpers of test_concurrency.py; deterministic: the other transaction holds the item's row while the
request runs). The update waits on the item's row lock and, finding it gone, answers 404 and writes nothing (it
answered 500: its UPDATE matched no row)."""
from __future__ import annotations

import secrets
import threading
import time

from sqlalchemy import delete

from tests.concurrency.test_concurrency import _call, _token
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
        answers = []
        with sessions() as other:  # another request deleting the item, holding its row until it commits
            other.execute(delete(ConfigListItem).where(ConfigListItem.id == item.id))
            request = threading.Thread(target=lambda: answers.append(
                _call(base, "PUT", f"/api/config-lists/{config_list.key}/items/{item.id}", token, body)))
            request.start()
            time.sleep(1.0)  # the request has read the item and waits on its row
            assert request.is_alive()
            other.commit()
        request.join(timeout=20)
        assert [status for status, _ in answers] == [404], (body, answers)
