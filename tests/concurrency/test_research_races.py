"""Races of the research area against a real HTTP server on Postgres (the server and helpers of
test_concurrency.py): deterministic, another transaction deletes the researched deal while the run's provider
calls answer."""
from __future__ import annotations

import secrets

from sqlalchemy import delete, func, select

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_a_run_whose_deal_was_deleted_meanwhile_is_a_404(live):
    """A research run of a deal deleted while the page was fetched and read: 404 as a run after the delete
    answers, with nothing written (it was a 400 from the brief's foreign key, naming deal_id, which the
    request does not have)."""
    from chalicelib.areas.deals.models import Deal
    from chalicelib.areas.research.models import ResearchBrief
    from tests.areas.deals.factories import make_company, make_deal
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        deal = make_deal(db, company_id=make_company(db, name="Acme Pty").id)
        db.commit()
    # another request deleting the deal, holding its row until it commits; the request reads the deal, the
    # provider calls answer, then it waits on the row
    status, body = while_held(sessions, delete(Deal).where(Deal.id == deal.id),
                              lambda: _call(base, "POST", "/api/research/run", _token(user),
                                            {"entity_type": "deal", "entity_id": deal.id,
                                             "store_url": "https://93.184.216.34/"}), wait=2.0)
    assert status == 404, body
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(ResearchBrief)
                         .where(ResearchBrief.entity_id == deal.id)) == 0
