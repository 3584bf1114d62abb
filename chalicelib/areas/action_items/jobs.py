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
    the rows whose urgency changes, `urgency_on` today), so the stored column follows the day and a urgency
    given by hand to an item with a due date is replaced. Reads do not wait for it: they answer today's urgency
    of an item whose urgency was written before today (queries.current_urgency). Run again the same day:
    nothing changes. By hand: `python -m chalicelib.cli job action-items-urgency`."""
    today = org_today()
    computed = urgency_expression(today)
    with unit_of_work() as uow:
        result = uow.session.execute(update(ActionItem)
                                .where(ActionItem.is_completed.is_(False), ActionItem.due_date.is_not(None),
                                       ActionItem.urgency != computed)
                                .values(urgency=computed, urgency_on=today)
                                .execution_options(synchronize_session=False))
        updated = result.rowcount
    return {"today": today.isoformat(), "updated": updated}
