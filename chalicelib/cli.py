"""Command line: create-user, token, migrate, downgrade, job, worker, openapi.

    python -m chalicelib.cli create-user --email E --name N --access-level executive
    python -m chalicelib.cli token --email E
    python -m chalicelib.cli job --list            # every scheduled job with its schedule
    python -m chalicelib.cli job notifications-drain
    python -m chalicelib.cli worker [--once]       # consume the notifications queue (moto server or AWS)
    python -m chalicelib.cli local-aws             # bucket and queues on the moto server of AWS_ENDPOINT_URL
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys



def scheduled_jobs() -> dict:
    """`{name: event source}` of every scheduled function the service registers (the app's own table,
    the one `chalice package` deploys: no list kept by hand). `notifications_drain` is `notifications-drain`."""
    from app import app

    return {source.name.replace("_", "-"): source for source in app.event_sources
            if type(source).__name__ == "ScheduledEventConfig"}


def _handler(source):
    module, _, name = source.handler_string.rpartition(".")
    return getattr(importlib.import_module(module), name)


def scheduled_event(name: str) -> dict:
    """The event EventBridge hands a scheduled function."""
    from datetime import datetime, timezone

    from chalicelib.core.settings import get_settings

    return {"version": "0", "id": f"cli-{name}", "detail-type": "Scheduled Event", "source": "aws.events",
            "account": "000000000000", "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": get_settings().aws_region, "resources": [], "detail": {}}


def _create_user(args) -> int:
    from sqlalchemy import func, select

    from chalicelib.core.db import unit_of_work
    from chalicelib.core.models import ACCESS_LEVELS, User
    from chalicelib.core.serialize import columns, row_dict

    from chalicelib.core.spelling import email_key

    # stored as the admin API stores it: trimmed, lower-cased, composed (session 32)
    email, name = email_key(args.email), args.name.strip()
    if "@" not in email or not name:
        print("a user needs an e-mail address and a name", file=sys.stderr)
        return 2
    if args.access_level not in ACCESS_LEVELS:
        print(f"access level must be one of {', '.join(ACCESS_LEVELS)}", file=sys.stderr)
        return 2
    with unit_of_work() as uow:
        if uow.session.scalar(select(User).where(func.lower(User.email) == email)):
            print(f"a user with email {email} exists", file=sys.stderr)
            return 1
        user = User(email=email, name=name, access_level=args.access_level, is_active=True)
        uow.session.add(user)
        uow.session.flush()
        record = row_dict(user, [c for c in columns(User) if c != "salary"], flags=("is_active",))
    print(json.dumps(record, indent=2))
    return 0


def _token(args) -> int:
    from sqlalchemy import func, select

    from chalicelib.core.auth import issue_dev_token
    from chalicelib.core.db import unit_of_work
    from chalicelib.core.models import User

    try:
        token = issue_dev_token(args.email, ttl_seconds=args.days * 86400)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 2
    with unit_of_work() as uow:
        user = uow.session.scalar(select(User).where(func.lower(User.email) == args.email.strip().lower()))
        problem = (f"no user with the e-mail {args.email}" if user is None
                   else f"the user {args.email} is inactive" if not user.is_active else None)
    if problem:
        print(f"token: {problem}; a token for them would be refused (create the user first: create-user)",
              file=sys.stderr)
        return 1
    print(token)
    return 0


def _preflight(args) -> int:
    """What `make run` checks before it starts: the port is free and the database answers. One clear
    line and exit status 1 otherwise (never a traceback)."""
    import socket

    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    from chalicelib.core.settings import get_settings

    with socket.socket() as probe:
        # as chalice local's server binds (SO_REUSEADDR): the connections a stopped server leaves in
        # TIME_WAIT do not hold the port, only something listening on it does
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((args.host, args.port))
        except OSError:
            print(f"make run: port {args.port} on {args.host} is in use; stop what holds it or choose another "
                  f"(make run PORT=8001)", file=sys.stderr)
            return 1
    try:
        url = get_settings().database_url
    except Exception as exc:  # noqa: BLE001 - a settings problem is reported in one line too
        print(f"make run: the settings are invalid: {exc}", file=sys.stderr)
        return 1
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    target = make_url(url)
    shown = target.render_as_string(hide_password=True)
    connect_args = {"timeout": 5} if target.drivername.endswith("pg8000") else {}
    try:
        engine = create_engine(url, connect_args=connect_args)
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        engine.dispose()
    except (SQLAlchemyError, OSError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0][:200]
        print(f"make run: the database at {shown} is unreachable ({reason}); start it or set DATABASE_URL",
              file=sys.stderr)
        return 1
    return 0


def _migrate(args) -> int:
    from chalicelib.migrations.runner import upgrade

    upgrade(revision=args.revision)
    return 0


def _downgrade(args) -> int:
    from chalicelib.migrations.runner import downgrade

    downgrade(revision=args.revision)
    return 0


def _job(args) -> int:
    jobs = scheduled_jobs()
    if getattr(args, "list", False):
        for name, source in sorted(jobs.items()):
            doc = (_handler(source).func.__doc__ or "").strip().splitlines()
            print(f"{name:32s} {source.schedule_expression.to_string():24s} {doc[0] if doc else ''}")
        return 0
    if not args.name:
        print("job: name a job, or --list", file=sys.stderr)
        return 2
    source = jobs.get(args.name)
    if source is None:
        print(f"unknown job {args.name}; known: {', '.join(sorted(jobs))}", file=sys.stderr)
        return 2
    result = _handler(source)(scheduled_event(args.name), None)  # as Lambda calls it
    print(json.dumps(result, default=str))
    return 0


def _local_aws(args) -> int:
    """Create the uploads bucket and the notifications queue (with its dead-letter queue) on the moto
    server or AWS account that AWS_ENDPOINT_URL / the credentials point at; print the settings to export."""
    from chalicelib.core.aws import client
    from chalicelib.core.settings import get_settings

    settings = get_settings()
    if not settings.aws_endpoint_url and not args.real_aws:
        print("local-aws: set AWS_ENDPOINT_URL to the moto server (e.g. http://127.0.0.1:5000), or pass "
              "--real-aws to create the resources in the account of your credentials", file=sys.stderr)
        return 2
    s3, sqs = client("s3"), client("sqs")
    region = settings.aws_region
    try:
        s3.create_bucket(Bucket=args.bucket, **({} if region == "us-east-1" else
                                               {"CreateBucketConfiguration": {"LocationConstraint": region}}))
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    dlq = sqs.create_queue(QueueName=f"{args.queue}-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    queue = sqs.create_queue(QueueName=args.queue, Attributes={
        "VisibilityTimeout": "30",
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "5"})})["QueueUrl"]
    print(f"export UPLOADS_BUCKET={args.bucket}")
    print(f"export NOTIFICATIONS_QUEUE_URL={queue}")
    return 0


def _worker(args) -> int:
    """Consume the notifications queue with the handler its Lambda function runs, until interrupted."""
    from chalicelib.areas.notifications import jobs
    from chalicelib.core import queue

    def handle(event: dict) -> dict:
        result = jobs.handle_queue_event(event)
        failed = len(result.get("batchItemFailures", []))
        done = len(event["Records"]) - failed
        print(f"worker: {done} handled, {failed} failed (left on the queue)", file=sys.stderr, flush=True)
        return result

    url = queue.queue_url("notifications")
    if url:
        print(f"worker: polling {url}" + (" until it is empty" if args.once else " (Ctrl-C stops)"),
              file=sys.stderr, flush=True)
    try:
        counts = queue.poll("notifications", handle, once=args.once, wait_seconds=args.wait)
    except RuntimeError as exc:
        print(f"worker: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    print(json.dumps(counts))
    return 0


def _openapi(args) -> int:
    from chalicelib.areas.system.service import openapi_document

    text = json.dumps(openapi_document(), indent=2, sort_keys=True)
    if args.output == "-":
        print(text)
    else:
        with open(args.output, "w") as handle:
            handle.write(text + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chalicelib.cli")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("create-user", help="create a user and print it as JSON")
    p.add_argument("--email", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--access-level", default="employee")
    p.set_defaults(run=_create_user)
    p = sub.add_parser("token", help="print a development token (HS256)")
    p.add_argument("--email", required=True)
    p.add_argument("--days", type=int, default=30)
    p.set_defaults(run=_token)
    p = sub.add_parser("preflight", help="check the port is free and the database answers (make run)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--host", default="127.0.0.1")
    p.set_defaults(run=_preflight)
    p = sub.add_parser("migrate", help="apply migrations")
    p.add_argument("--revision", default="heads")
    p.set_defaults(run=_migrate)
    p = sub.add_parser("downgrade", help="revert migrations")
    p.add_argument("--revision", default="base")
    p.set_defaults(run=_downgrade)
    p = sub.add_parser("job", help="run a scheduled job by hand, or --list them with their schedules")
    p.add_argument("name", nargs="?")
    p.add_argument("--list", action="store_true")
    p.set_defaults(run=_job)
    p = sub.add_parser("local-aws", help="create the bucket and queues on a moto server (AWS_ENDPOINT_URL)")
    p.add_argument("--bucket", default="wms-local-uploads")
    p.add_argument("--queue", default="wms-notifications")
    p.add_argument("--real-aws", action="store_true", help="allow creating them in a real AWS account")
    p.set_defaults(run=_local_aws)
    p = sub.add_parser("worker", help="consume the notifications queue (NOTIFICATIONS_QUEUE_URL) as its Lambda would")
    p.add_argument("--once", action="store_true", help="stop when the queue is empty")
    p.add_argument("--wait", type=int, default=10, help="long-poll seconds")
    p.set_defaults(run=_worker)
    p = sub.add_parser("openapi", help="write the OpenAPI document")
    p.add_argument("--output", default="docs/openapi.json")
    p.set_defaults(run=_openapi)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
