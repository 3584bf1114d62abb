"""The migrations Lambda function: applies Alembic migrations (`upgrade heads`) on deploy.

Handler `chalicelib.migrations.deploy.handler`, packaged by `infra/package.py` with the same code
bundle as the API functions. Two ways in:

- a CloudFormation custom resource (`Custom::Migrations`): Create and Update run the migrations,
  Delete does nothing (the database outlives the code); the outcome is PUT to the pre-signed
  `ResponseURL`, always, so that a failure rolls the stack back instead of hanging it;
- a direct invocation (`aws lambda invoke --function-name <MigrationsFunctionName> out.json`):
  runs the migrations and returns `{"status": "ok", "heads": [...]}`, raising on failure.

The database URL comes from `DATABASE_URL` (settings), exactly as for the API functions.
"""
from __future__ import annotations

import json
import logging
import traceback
import urllib.request

logger = logging.getLogger(__name__)
logger.setLevel(logging.INFO)


def migrate() -> list[str]:
    """Apply every area's migration branch; return the database's revisions afterwards."""
    from alembic.runtime.migration import MigrationContext

    from chalicelib.core.db import make_engine
    from chalicelib.migrations.runner import upgrade

    upgrade()
    engine = make_engine()
    try:
        with engine.connect() as connection:
            return sorted(MigrationContext.configure(connection).get_current_heads())
    finally:
        engine.dispose()


def send_response(event: dict, status: str, reason: str = "", data: dict | None = None) -> None:
    body = json.dumps({
        "Status": status,
        "Reason": (reason or status)[:3000],
        "PhysicalResourceId": event.get("PhysicalResourceId") or "wms-migrations",
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
        "NoEcho": False,
        "Data": data or {},
    }).encode()
    request = urllib.request.Request(event["ResponseURL"], data=body, method="PUT",
                                     headers={"Content-Type": "", "Content-Length": str(len(body))})
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (CloudFormation's https URL)
        response.read()


def handler(event: dict, context=None) -> dict:
    if "RequestType" not in event:  # invoked by hand
        heads = migrate()
        logger.info("migrations applied: %s", heads)
        return {"status": "ok", "heads": heads}
    try:
        if event["RequestType"] in ("Create", "Update"):
            heads = migrate()
            logger.info("migrations applied: %s", heads)
            send_response(event, "SUCCESS", data={"Heads": ",".join(heads)})
        else:
            send_response(event, "SUCCESS", reason="migrations are not reverted on delete")
    except Exception as exc:  # report every failure to CloudFormation, or the stack waits an hour
        logger.error("migrations failed: %s", traceback.format_exc())
        send_response(event, "FAILED", reason=f"{type(exc).__name__}: {exc}")
    return {"status": "done"}
