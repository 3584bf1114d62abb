"""Background work of the action items area: the urgency refresh.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.db.unit_of_work()`).
"""
from __future__ import annotations

from sqlalchemy import update

from chalicelib.core.db import unit_of_work
from chalicelib.core.timeutil import org_today

from .models import ActionItem
from .queries import urgency_expression


def refresh_urgency() -> dict:
    """Recompute the urgency of every open item with a due date from today in ORG_TIMEZONE (one UPDATE of
    the rows whose urgency changes), so an item due tomorrow becomes `today` without a write of its own.
    Run again the same day: nothing changes. By hand: `python -m chalicelib.cli job action-items-urgency`."""
    today = org_today()
    computed = urgency_expression(today)
    with unit_of_work() as uow:
        result = uow.session.execute(update(ActionItem)
                                .where(ActionItem.is_completed.is_(False), ActionItem.due_date.is_not(None),
                                       ActionItem.urgency != computed)
                                .values(urgency=computed).execution_options(synchronize_session=False))
        updated = result.rowcount
    return {"today": today.isoformat(), "updated": updated}
