"""The notice of a client's ad-platform connection that stopped syncing (session 25): who hears of it and what it
says; service_connections' sync collects the connections gone to `error` and calls `tell_failing` after its loop."""
from __future__ import annotations

import logging

log = logging.getLogger("wms.portal")


FAILING_TITLE = "A client's connected account stopped syncing"
CONNECTED_TITLE = "A client connected an account"


def company_readers(db, users_by_company: dict) -> dict:
    """`{company_id: the users of `users_by_company` who may read it}` (deals view, the company in their scope):
    only they are told its name, its connection's and a link to it (two statements at most)."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.readers import rows_readers

    return rows_readers(db, deals_service.Company, users_by_company, tool="deals", scope_of=deals_service.visible)



def failure(conn, error: str) -> dict:
    return {"id": conn.id, "company_id": conn.company_id, "platform": conn.platform,
            "display_name": conn.display_name, "error": error}


def tell_failing(failing: list[dict]) -> None:
    """`portal_connection_error` for the connections of a sync that went from a non-error status to `error` (a
    failed retry of one in `error` tells nobody again; session 25: a failing connection told nobody and the
    client's figures silently stopped), to the person `portal_connection` tells (the client profile's active
    delivery manager, else the company's active owner: `queries.connection_contacts`). The company's name, the
    connection's and the failure's text and the link to the company only to one who may read the company (deals
    view, in its scope); another reads that a client's account stopped syncing. A fixed number of statements
    whatever the number of connections (the contacts, their permissions, notify_many), in a unit of work of its own
    after the connections' own; a failure here is logged, the sync's counts still answered."""
    if not failing:
        return
    from chalicelib.core.context import job_context
    from chalicelib.core.notify import notify_many
    from chalicelib.core.serialize import clipped
    from chalicelib.providers.adplatforms import PLATFORM_NAMES

    from .queries import connection_contacts

    try:
        with job_context() as ctx:
            contacts = connection_contacts(ctx.db, {item["company_id"] for item in failing})
            readers = company_readers(ctx.db, {company_id: {user_id} for company_id, (user_id, _) in contacts.items()})
            notices = []
            for item in failing:
                company_id = item["company_id"]
                if company_id not in contacts:
                    continue
                user_id, company_name = contacts[company_id]
                told = ({"title": f"{company_name}: {PLATFORM_NAMES.get(item['platform'], item['platform'])} "
                                  f"stopped syncing ({item['display_name']})",
                         "body": clipped(item["error"], 500), "action_url": f"/companies/{company_id}"}
                        if user_id in readers.get(company_id, ()) else {"title": FAILING_TITLE})
                notices.append({"user_id": user_id, "type": "portal_connection_error",
                                "resource_type": "ad_connection", "resource_id": item["id"], **told})
            notify_many(ctx, notices)
    except Exception:  # noqa: BLE001 - the connections' statuses are written; the counts are still answered
        log.exception("ad platform sync: the failing connections' notices could not be made",
                      extra={"connection_ids": [item["id"] for item in failing]})
