"""Command line: create-user, token, migrate, downgrade, job <name>, openapi.

    python -m chalicelib.cli create-user --email E --name N --access-level executive
    python -m chalicelib.cli token --email E
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys

JOBS = {
    # name -> "module:function"; each area adds its scheduled jobs here.
    "notifications-drain": "chalicelib.areas.notifications.jobs:drain_pending",
}


def _create_user(args) -> int:
    from sqlalchemy import func, select

    from chalicelib.core.db import unit_of_work
    from chalicelib.core.models import ACCESS_LEVELS, User
    from chalicelib.core.serialize import columns, row_dict

    email, name = args.email.strip().lower(), args.name.strip()
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


def _migrate(args) -> int:
    from chalicelib.migrations.runner import upgrade

    upgrade(revision=args.revision)
    return 0


def _downgrade(args) -> int:
    from chalicelib.migrations.runner import downgrade

    downgrade(revision=args.revision)
    return 0


def _job(args) -> int:
    target = JOBS.get(args.name)
    if target is None:
        print(f"unknown job {args.name}; known: {', '.join(sorted(JOBS))}", file=sys.stderr)
        return 2
    module, _, function = target.partition(":")
    result = getattr(importlib.import_module(module), function)()
    print(json.dumps(result, default=str))
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
    p = sub.add_parser("migrate", help="apply migrations")
    p.add_argument("--revision", default="heads")
    p.set_defaults(run=_migrate)
    p = sub.add_parser("downgrade", help="revert migrations")
    p.add_argument("--revision", default="base")
    p.set_defaults(run=_downgrade)
    p = sub.add_parser("job", help="run a scheduled job by hand")
    p.add_argument("name")
    p.set_defaults(run=_job)
    p = sub.add_parser("openapi", help="write the OpenAPI document")
    p.add_argument("--output", default="docs/openapi.json")
    p.set_defaults(run=_openapi)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
