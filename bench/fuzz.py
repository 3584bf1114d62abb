"""Fuzz every operation of the OpenAPI document against a served copy of the service on Postgres.

    .venv/bin/python bench/fuzz.py                 # make fuzz: 50 examples per operation
    .venv/bin/python bench/fuzz.py --quick         # CI: 5 examples per operation, 3 minutes at most
    .venv/bin/python bench/fuzz.py --quick --per-function   # CI (make fuzz-functions): each area served alone

Steps: a fresh Postgres database (TEST_DATABASE_URL's server, or a throwaway cluster), migrations,
an executive and a development token, `docs/openapi.json` written from the route table, then
`chalice local` on a free loopback port. Schemathesis generates requests for every operation
(schema-conforming and schema-violating ones) sent with the executive's token. Checks:
  * no response is a 5xx;
  * every 4xx from the service has the error body of decisions.md section 4:
    `{"error": "<message>"}`, and `details` (when present) a list of `{field, message}`.
  * every answer carries `X-Request-Id`;
  * every 2xx matches the route's declared read model (the server runs with WMS_CHECK_RESPONSES=1,
    so a mismatch is a 5xx naming the field).
Besides schemathesis' cases, each operation gets hostile requests that once broke the service: lone
surrogates and NUL in text, timestamps that overflow when normalised to UTC, JSON nested 100,000
deep. Ids returned by successful creates are fed back into path parameters (what the OpenAPI
document's `links` describe: a create's `id` feeds its detail, update and delete), so detail routes
are exercised on real records as well as on unknown ids; the report counts the 2xx answers. Between operations the executive is
restored (active, executive, no overrides), since the fuzzer may edit the permission matrix.
With --per-function each area is served alone, as its Lambda function is (WMS_MODULES=system,<area>: only its
own and the core's models loaded) and fuzzed on its own routes, the time cap shared; the all-areas server of the
default mode has every model loaded, and so hides what works only because another area was imported first (a
plain ForeignKey to another area's table made task deletes and duplicates 500 in the tasks function).
Findings go to bench/results/fuzz.json (each 5xx with method, path, request, response and the
server's log lines); the exit status is 1 when anything was found. Bounded in examples and time.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import (  # noqa: E402
    PROJECT_DIR, RESULTS_DIR, apply_environment, create_user, free_port, fresh_database, migrate,
    service_environment, token_for, write_json,
)

EXECUTIVE_EMAIL = "fuzz.executive@agency.test"
GATEWAY_MISS = "Missing Authentication Token"
_PARAM = re.compile(r"{([^}+]+)\+?}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="bounded CI mode: 5 examples, 180 s cap")
    parser.add_argument("--max-examples", type=int, default=None, help="examples per operation (50; quick 5)")
    parser.add_argument("--time-cap", type=float, default=None, help="seconds for the whole fuzzing (1800; quick 180)")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (reproducible run)")
    parser.add_argument("--include", default=None, help="regex on 'METHOD /path': fuzz only these operations")
    parser.add_argument("--per-function", action="store_true",
                        help="serve each area alone, as its Lambda function is (WMS_MODULES=system,<area>: its own "
                             "and the core's models only), and fuzz that area's operations against it")
    parser.add_argument("--areas", default=None, help="with --per-function: comma-separated areas (default: all)")
    parser.add_argument("--output", default=str(RESULTS_DIR / "fuzz.json"))
    parser.add_argument("--openapi", default=str(PROJECT_DIR / "docs" / "openapi.json"))
    args = parser.parse_args(argv)
    if args.max_examples is None:
        args.max_examples = 5 if args.quick else 50
    if args.time_cap is None:
        args.time_cap = 180.0 if args.quick else 1800.0
    return args


def write_openapi(path: str) -> dict:
    from chalicelib.cli import main as cli_main

    if cli_main(["openapi", "--output", path]) != 0:
        raise RuntimeError("could not write the OpenAPI document")
    return json.loads(Path(path).read_text())


class Server:
    """`chalice local` on a loopback port, its output in a log file we can slice per request."""

    def __init__(self, env: dict, port: int) -> None:
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.log_path = Path(tempfile.mkstemp(prefix="wms-fuzz-server-", suffix=".log")[1])
        self._log = open(self.log_path, "wb")
        chalice = Path(sys.executable).with_name("chalice")
        command = [str(chalice), "local", "--host", "127.0.0.1", "--port", str(port), "--stage", "dev",
                   "--no-autoreload"]
        self.process = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=self._log,
                                        stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout: float = 90.0) -> None:
        import requests

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chalice local exited: {self.log_path.read_text()[-3000:]}")
            try:
                if requests.get(self.base_url + "/api/health", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"chalice local did not answer in {timeout:.0f} s: {self.log_path.read_text()[-3000:]}")

    def log_offset(self) -> int:
        self._log.flush()
        return self.log_path.stat().st_size

    def log_since(self, offset: int, limit: int = 6000) -> str:
        time.sleep(0.05)  # let the server flush its traceback
        with open(self.log_path, "rb") as handle:
            handle.seek(offset)
            return handle.read(limit).decode("utf-8", "replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # the process group we started
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self._log.close()


def restore_executive(user_id: str, email: str) -> None:
    """Undo what a fuzzed admin request may have done to the fuzzing user."""
    from sqlalchemy import text

    from chalicelib.core.db import unit_of_work

    with unit_of_work() as uow:
        uow.session.execute(text("UPDATE users SET is_active = true, access_level = 'executive', email = :email "
                                 "WHERE id = :id"), {"id": user_id, "email": email})
        uow.session.execute(text("DELETE FROM user_permissions WHERE user_id = :id"), {"id": user_id})
        uow.session.execute(text("DELETE FROM access_level_permissions WHERE access_level = 'executive'"))


def seed_notifications(user_id: str, count: int = 5) -> None:
    """A few notifications of the fuzzing user, so that their routes see real ids (nothing creates them by HTTP)."""
    from chalicelib.core.db import unit_of_work
    from chalicelib.core.notify import Notification

    with unit_of_work() as uow:
        for n in range(count):
            uow.session.add(Notification(user_id=user_id, type="task_assigned", title=f"Fuzz notification {n}"))


PORTAL_TOKEN = "fuzz-portal-token-" + uuid.uuid4().hex


def seed_portal_client() -> dict[str, str]:
    """A client company (with its profile, dashboard on) whose portal the fuzzer calls: the headers of the
    portal worker for /api/portal routes (the service token, company, an admin portal user)."""
    from chalicelib.areas.clients.models import ClientProfile
    from chalicelib.areas.deals.models import Company
    from chalicelib.core.db import unit_of_work

    with unit_of_work() as uow:
        company = Company(name="Fuzz Client", status="client")
        uow.session.add(company)
        uow.session.flush()
        uow.session.add(ClientProfile(company_id=company.id, dashboard_enabled=True, portal_visibility={}))
        company_id = company.id
    return {"Authorization": f"Bearer {PORTAL_TOKEN}", "X-Portal-Company-Id": company_id,
            "X-Portal-User-Role": "admin", "X-Portal-User-Id": "fuzz-portal-user"}


def error_body_problem(response) -> str | None:
    """None when a 4xx body is decisions.md section 4's error body, else what is wrong."""
    try:
        body = json.loads(response.content or b"")
    except ValueError:
        return "body is not JSON"
    if not isinstance(body, dict):
        return "body is not a JSON object"
    if not isinstance(body.get("error"), str) or not body["error"].strip():
        return "no non-empty string `error`"
    details = body.get("details")
    if details is not None:
        if not isinstance(details, list):
            return "`details` is not a list"
        for item in details:
            if not isinstance(item, dict) or not isinstance(item.get("field"), str) \
                    or not isinstance(item.get("message"), str):
                return "`details` item is not {field, message}"
    return None


def has_request_id(response) -> bool:
    """Whether the answer carries X-Request-Id (header names in any case; schemathesis keys them in lower
    case, with lists of values)."""
    return any(name.lower() == "x-request-id" and value for name, value in (response.headers or {}).items())


def is_gateway_miss(response) -> bool:
    """API Gateway's own answer for a path no route matches (chalice local imitates it)."""
    return response.status_code in (403, 404) and GATEWAY_MISS.encode() in (response.content or b"")


class KnownIds:
    """Ids seen in 2xx bodies, to fill path parameters with real records.

    `by_name`: ids under the parameter name they would fill (`{"task": {"id"}}` -> task_id).
    `by_collection`: for the collection path a record was created at or listed from, the path
    parameters of that call plus the record's id, so that nested routes get matching parents
    (`/api/projects/{project_id}/goals/{goal_id}` gets a goal of that very project).
    """

    def __init__(self) -> None:
        self.by_name: dict[str, set] = defaultdict(set)
        self.by_collection: dict[str, list[dict]] = defaultdict(list)

    def harvest(self, response, method: str, path: str, path_parameters: dict | None) -> None:
        if response.status_code >= 300:
            return
        try:
            body = json.loads(response.content or b"")
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        records = []
        for key, value in body.items():
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                records.append((key, value))
            elif isinstance(value, list) and key.endswith("s"):  # {"notifications": [{id, ...}, ...]}
                records += [(key[:-1], item) for item in value[:20] if isinstance(item, dict)]
        for name, record in records:
            if isinstance(record.get("key"), str):
                self.by_name["key"].add(record["key"])  # config lists are addressed by key
            if not isinstance(record.get("id"), str):
                continue
            self.by_name[f"{name}_id"].add(record["id"])
            collects = (method == "POST" and name == next(iter(body), None)) or method == "GET"
            if collects and len(self.by_collection[path]) < 40:
                fields = {k: v for k, v in record.items() if isinstance(v, str) and len(v) <= 200}
                self.by_collection[path].append({"params": dict(path_parameters or {}), "record": fields})

    def follow_links(self, response, links: dict) -> int:
        """The OpenAPI links of the answered operation: each `$response.body#/<pointer>` parameter's value
        joins the pool of that parameter name. Answers how many values it took."""
        if response.status_code >= 300 or not links:
            return 0
        try:
            body = json.loads(response.content or b"")
        except ValueError:
            return 0
        taken = 0
        for link in links.values():
            for name, expression in link.get("parameters", {}).items():
                if not isinstance(expression, str) or not expression.startswith("$response.body#/"):
                    continue
                value = body
                for part in expression[len("$response.body#/"):].split("/"):
                    value = value.get(part) if isinstance(value, dict) else None
                if isinstance(value, str):
                    self.by_name[name].add(value)
                    taken += 1
        return taken

    def combos(self, path: str) -> list[dict]:
        """Complete sets of path parameters for `path`, matching parents first, else by name."""
        names = _PARAM.findall(path)
        if not names:
            return []
        last = names[-1]
        collection = path.split("/{" + last + "}")[0]
        result = []
        for entry in self.by_collection.get(collection, []):
            combo = dict(entry["params"])
            # the record's own field when the parameter is named after one (`key`), else its id
            combo[last] = entry["record"].get(last, entry["record"]["id"])
            if set(combo) >= set(names):
                result.append({name: combo[name] for name in names})
        if not result and all(self.by_name.get(name) for name in names):
            pools = {name: sorted(self.by_name[name])[:20] for name in names}
            width = max(len(pool) for pool in pools.values())
            result = [{name: pool[i % len(pool)] for name, pool in pools.items()} for i in range(width)]
        return result[:40]


def request_record(case, response) -> dict:
    request = response.request
    headers = {k: v for k, v in (request.headers or {}).items() if k.lower() not in ("authorization", "cookie")}
    body = request.body
    if isinstance(body, bytes):
        body = body[:4000].decode("utf-8", "replace")
    return {
        "method": request.method,
        "url": request.url,
        "headers": headers,
        "body": body,
        "path_parameters": case.path_parameters,
        "query": case.query,
    }


def operation_order(item) -> tuple:
    """Creates first, then reads and updates; deletes last, children before their parents."""
    method, path = item[0], item[1]
    rank = {"POST": 0, "GET": 1, "PUT": 2, "PATCH": 2, "DELETE": 3}.get(method, 2)
    if method == "DELETE":
        return (True, rank, -path.count("/"), path)
    return (bool(_PARAM.search(path)), rank, 0, path)


def _resolve(schema: dict, components: dict) -> dict:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def plausible(schema: dict, components: dict, known: "KnownIds", name: str = ""):
    """A value the schema accepts, with `*_id` fields set to ids seen earlier: one explicit case per
    operation, so that creates whose rules refuse random data still reach their success path."""
    schema = _resolve(schema, components)
    if name.endswith("_id") and known.by_name.get(name):
        return sorted(known.by_name[name])[0]
    if name.endswith("_id") and name in ("owner_id", "assignee_id", "reporter_id", "manager_id") \
            and known.by_name.get("user_id"):
        return sorted(known.by_name["user_id"])[0]
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [_resolve(o, components) for o in schema[key]]
            options = [o for o in options if o.get("type") != "null"] or options
            return plausible(options[0], components, known, name)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        chosen = set(schema.get("required", [])) | {p for p in props if p.endswith("_id") and known.by_name.get(p)}
        return {p: plausible(props[p], components, known, p) for p in props if p in chosen}
    if kind == "array":
        return [plausible(schema.get("items", {}), components, known) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "date":
            return datetime.now(timezone.utc).date().isoformat()
        if fmt == "date-time":
            return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")
        if fmt == "email" or "email" in name:
            return f"fuzz-{uuid.uuid4().hex[:10]}@agency.test"
        if fmt in ("uri", "url") or name.endswith("url"):
            return "https://example.com/fuzz"
        return ("fuzz " + uuid.uuid4().hex)[: max(schema.get("maxLength", 40), schema.get("minLength", 1))]
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    return None


HOSTILE_TEXT = "fuzz \udfff lone surrogate"
HOSTILE_TIMES = ("9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00")
DEEP = 100_000


def _replace_leaves(value, text=None, timestamp=None):
    """`value` with every string leaf replaced (text), or every timestamp-looking one (timestamp)."""
    if isinstance(value, dict):
        return {k: _replace_leaves(v, text, timestamp) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_leaves(v, text, timestamp) for v in value]
    if isinstance(value, str):
        if timestamp is not None and re.fullmatch(r"\d{4}-\d{2}-\d{2}T.*", value):
            return timestamp
        if text is not None:
            return text
    return value


def hostile_requests(method: str, path: str, seeded, combos: list[dict]):
    """(name, request) pairs that once broke the service: lone surrogates and NUL in text, overflowing
    timestamps, JSON nested far deeper than the bound, a lone surrogate in the query string."""
    filled = path
    for name, value in (combos[0] if combos else {}).items():
        filled = filled.replace("{" + name + "}", str(value))
    filled = _PARAM.sub("00000000-0000-0000-0000-000000000000", filled)
    json_headers = {"Content-Type": "application/json"}
    if method in ("POST", "PUT", "PATCH"):
        body = seeded if isinstance(seeded, dict) else {}
        body = {**body, "title": body.get("title", "x"), "name": body.get("name", "x")}
        yield "lone surrogate", {"path": filled, "headers": json_headers,
                                 "data": json.dumps(_replace_leaves(body, text=HOSTILE_TEXT))}
        yield "NUL", {"path": filled, "headers": json_headers, "data": json.dumps(_replace_leaves(body, text="a\x00b"))}
        for moment in HOSTILE_TIMES:
            timed = _replace_leaves(body, timestamp=moment)
            timed.setdefault("approved_at", moment)
            yield f"timestamp {moment}", {"path": filled, "headers": json_headers, "data": json.dumps(timed)}
        yield "deep nesting", {"path": filled, "headers": json_headers, "data": "[" * DEEP + "]" * DEEP}
        yield "deep field", {"path": filled, "headers": json_headers,
                             "data": '{"title": "x", "name": "x", "metadata": ' + "[" * 5000 + "]" * 5000 + "}"}
    else:
        yield "query surrogate", {"path": filled + "?search=%ED%BF%BF&q=%00", "headers": {}, "data": None}


def run_fuzz(args, base_url: str, token: str, server: Server, executive_id: str, document: dict,
             portal_headers: dict | None = None, only: set | None = None, alive_path: str = "/api/me") -> dict:
    import requests
    import schemathesis
    from hypothesis import HealthCheck, Phase, given, seed as hypothesis_seed, settings, strategies as st
    from schemathesis import GenerationMode

    schema = schemathesis.openapi.from_path(args.openapi)
    operations = []
    for result in schema.get_all_operations():
        operation = result.ok()
        operations.append((operation.method.upper(), operation.path, operation))
    operations.sort(key=operation_order)
    if args.include:
        pattern = re.compile(args.include)
        operations = [item for item in operations if pattern.search(f"{item[0]} {item[1]}")]
    if only is not None:
        operations = [item for item in operations if (item[0], item[1]) in only]

    session = requests.Session()
    headers = {"Authorization": f"Bearer {token}"}
    known = KnownIds()
    known.by_name["user_id"].add(executive_id)
    server_errors: dict[tuple, dict] = {}
    bad_bodies: dict[tuple, dict] = {}
    transport_errors: list[dict] = []
    missing_request_ids: list[dict] = []
    hostile_findings: list[dict] = []
    per_operation: dict[str, dict] = {}
    started = time.monotonic()
    cap_end = started + args.time_cap

    staff_headers = headers
    for index, (method, path, operation) in enumerate(operations):
        label = f"{method} {path}"
        # the portal's routes are called as the portal worker (its token and context headers)
        headers = {**staff_headers, **portal_headers} if portal_headers and path.startswith("/api/portal") \
            else staff_headers
        remaining_ops = len(operations) - index
        op_deadline = time.monotonic() + max(2.0, (cap_end - time.monotonic()) / remaining_ops)
        statuses: Counter = Counter()
        stats = {"examples": 0, "gateway_misses": 0, "skipped_over_time": 0}

        strategies = [operation.as_strategy(generation_mode=GenerationMode.POSITIVE)]
        try:
            strategies.append(operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
        except Exception:  # noqa: BLE001 - nothing to violate in this operation
            pass
        components = document.get("components", {}).get("schemas", {})
        responses = document["paths"].get(path, {}).get(method.lower(), {}).get("responses", {})
        links = {name: link for answer in responses.values() for name, link in answer.get("links", {}).items()}
        body_schema = (document["paths"].get(path, {}).get(method.lower(), {}).get("requestBody", {})
                       .get("content", {}).get("application/json", {}).get("schema"))
        seeded = plausible(body_schema, components, known) if body_schema is not None else None
        if seeded is not None:
            strategies.append(operation.as_strategy(generation_mode=GenerationMode.POSITIVE, body=seeded))
        combos = known.combos(path)
        if combos and seeded is not None:
            strategies.append(st.sampled_from(combos).flatmap(lambda fixed: operation.as_strategy(
                generation_mode=GenerationMode.POSITIVE, path_parameters=fixed, body=seeded)))
        if combos:
            real = st.sampled_from(combos).flatmap(
                lambda fixed: operation.as_strategy(generation_mode=GenerationMode.POSITIVE, path_parameters=fixed))
            strategies += [real, real]  # half of the cases on real records
        strategy = st.one_of(*strategies)

        def check(case):
            if time.monotonic() > op_deadline:
                stats["skipped_over_time"] += 1
                return
            offset = server.log_offset()
            try:
                response = case.call(base_url=base_url, session=session, headers=headers, timeout=30)
            except Exception as exc:  # noqa: BLE001 - a dropped connection is a finding too
                transport_errors.append({"operation": label, "error": repr(exc)[:500],
                                         "path_parameters": case.path_parameters, "query": case.query,
                                         "server_log": server.log_since(offset)})
                return
            stats["examples"] += 1
            statuses[response.status_code] += 1
            if not has_request_id(response) and not is_gateway_miss(response):
                missing_request_ids.append({"operation": label, "status": response.status_code})
            known.harvest(response, method, path, case.path_parameters)
            stats["link_values"] = stats.get("link_values", 0) + known.follow_links(response, links)
            if response.status_code >= 500:
                key = (method, path, response.status_code, (response.content or b"")[:200])
                if key in server_errors:
                    server_errors[key]["occurrences"] += 1
                else:
                    server_errors[key] = {
                        "method": method, "path": path, "status": response.status_code,
                        "request": request_record(case, response),
                        "response": (response.content or b"")[:2000].decode("utf-8", "replace"),
                        "server_log": server.log_since(offset), "occurrences": 1,
                    }
            elif 400 <= response.status_code < 500:
                if is_gateway_miss(response):
                    stats["gateway_misses"] += 1
                    return
                problem = error_body_problem(response)
                if problem:
                    key = (method, path, response.status_code, problem)
                    if key in bad_bodies:
                        bad_bodies[key]["occurrences"] += 1
                    else:
                        bad_bodies[key] = {
                            "method": method, "path": path, "status": response.status_code, "problem": problem,
                            "request": request_record(case, response),
                            "response": (response.content or b"")[:1000].decode("utf-8", "replace"),
                            "occurrences": 1,
                        }

        test = settings(
            max_examples=args.max_examples, deadline=None, database=None, derandomize=args.seed is None and args.quick,
            phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck), print_blob=False,
        )(given(case=strategy)(check))
        if args.seed is not None:
            test = hypothesis_seed(args.seed)(test)
        if time.monotonic() < cap_end:
            try:
                test()
            except Exception as exc:  # noqa: BLE001 - a generation problem is reported, not fatal
                stats["generation_error"] = repr(exc)[:500]
        else:
            stats["skipped_over_time"] = args.max_examples
        for name, hostile in hostile_requests(method, path, seeded, known.combos(path)):
            try:
                response = session.request(method, base_url + hostile["path"], headers={**headers, **hostile["headers"]},
                                           data=hostile["data"], timeout=30)
            except Exception as exc:  # noqa: BLE001
                hostile_findings.append({"operation": label, "case": name, "error": repr(exc)[:300]})
                continue
            stats["examples"] += 1
            statuses[response.status_code] += 1
            problem = None if has_request_id(response) else "no X-Request-Id"
            if response.status_code >= 500:
                problem = f"{response.status_code}: {(response.content or b'')[:200]!r}"
            elif 400 <= response.status_code < 500 and not is_gateway_miss(response):
                problem = error_body_problem(response) or problem
            if problem:
                hostile_findings.append({"operation": label, "case": name, "problem": problem})
            # the service is still healthy for everyone else afterwards
            if session.get(base_url + alive_path, headers=staff_headers, timeout=30).status_code != 200:
                hostile_findings.append({"operation": label, "case": name, "problem": "next request failed"})
        stats["statuses"] = {str(code): count for code, count in sorted(statuses.items())}
        stats["successes"] = sum(count for code, count in statuses.items() if 200 <= code < 300)
        per_operation[label] = stats
        restore_executive(executive_id, EXECUTIVE_EMAIL)
        print(f"  {label:70s} {stats['examples']:4d} requests  {dict(sorted(statuses.items()))}", flush=True)

    elapsed = time.monotonic() - started
    return {
        "operations": len(operations),
        "requests": sum(op["examples"] for op in per_operation.values()),
        "elapsed_seconds": round(elapsed, 1),
        "time_capped": any(op.get("skipped_over_time") for op in per_operation.values()),
        "server_errors": list(server_errors.values()),
        "bad_error_bodies": list(bad_bodies.values()),
        "transport_errors": transport_errors,
        "missing_request_ids": missing_request_ids[:50],
        "hostile_findings": hostile_findings,
        "successes": sum(op.get("successes", 0) for op in per_operation.values()),
        "operations_with_success": sum(1 for op in per_operation.values() if op.get("successes")),
        "per_operation": per_operation,
        # coverage, not a failure: operations no generated case got a 2xx from (bodies the rules refuse)
        "operations_without_success": sorted(label for label, op in per_operation.items()
                                             if not any(code.startswith("2") for code in op["statuses"])),
    }


def area_operations() -> dict[str, set]:
    """{area: {(METHOD, path)}}: the routes of each area's blueprint (its Lambda function's routes), read from the
    whole app by the module of each view function."""
    import app as whole

    found: dict[str, set] = {}
    for path, methods in whole.app.routes.items():
        for method, entry in methods.items():
            module = getattr(entry.view_function, "__module__", "")
            parts = module.split(".")
            if parts[:2] == ["chalicelib", "areas"]:
                found.setdefault(parts[2], set()).add((method, path))
    return found


def merge_outcomes(outcomes: list[dict]) -> dict:
    """One outcome of several run_fuzz answers: counts added, lists joined, flags or-ed, maps merged."""
    merged: dict = {}
    for outcome in outcomes:
        for key, value in outcome.items():
            if isinstance(value, bool):
                merged[key] = merged.get(key, False) or value
            elif isinstance(value, (int, float)):
                merged[key] = round(merged.get(key, 0) + value, 1)
            elif isinstance(value, list):
                merged[key] = merged.get(key, []) + value
            elif isinstance(value, dict):
                merged[key] = {**merged.get(key, {}), **value}
    return merged


def run_per_function(args, env: dict, token: str, executive_id: str, document: dict, portal_headers: dict) -> dict:
    """Each area served alone (WMS_MODULES=system,<area>), fuzzed on its own operations; the time cap shared."""
    import copy

    routes = area_operations()
    areas = [a.strip() for a in args.areas.split(",")] if args.areas else [a for a in routes if a != "system"]
    outcomes, deadline = [], time.monotonic() + args.time_cap
    for index, area in enumerate(areas):
        area_args = copy.copy(args)
        area_args.time_cap = max(5.0, (deadline - time.monotonic()) / (len(areas) - index))
        print(f"fuzz: function {area} ({len(routes[area])} routes)", flush=True)
        server = Server({**env, "WMS_MODULES": f"system,{area}"}, free_port())
        try:
            server.wait_ready()
            outcomes.append(run_fuzz(area_args, server.base_url, token, server, executive_id, document,
                                     portal_headers, only=routes[area], alive_path="/api/health"))
        finally:
            server.stop()
    return merge_outcomes(outcomes)


def main(argv=None) -> int:
    args = parse_args(argv)
    print(f"fuzz: {args.max_examples} examples per operation, at most {args.time_cap:.0f} s", flush=True)
    with fresh_database("wms_fuzz") as url:
        env = service_environment(url)
        env["WMS_CHECK_RESPONSES"] = "1"
        env["PORTAL_SERVICE_TOKEN"] = PORTAL_TOKEN
        apply_environment(env)
        migrate(url)
        executive_id = create_user(EXECUTIVE_EMAIL, "Fuzz Executive", "executive")
        seed_notifications(executive_id)
        portal_headers = seed_portal_client()
        token = token_for(EXECUTIVE_EMAIL)
        document = write_openapi(args.openapi)
        print(f"fuzz: {sum(len(v) for v in document['paths'].values())} operations in {args.openapi}", flush=True)
        if args.per_function:
            outcome = run_per_function(args, env, token, executive_id, document, portal_headers)
        else:
            server = Server(env, free_port())
            try:
                server.wait_ready()
                outcome = run_fuzz(args, server.base_url, token, server, executive_id, document, portal_headers)
            finally:
                server.stop()
    report = {
        "generated_at": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
        "mode": ("quick" if args.quick else "full") + (" per function" if args.per_function else ""),
        "max_examples": args.max_examples,
        "time_cap_seconds": args.time_cap,
        "seed": args.seed,
        **outcome,
        "passed": not (outcome["server_errors"] or outcome["bad_error_bodies"] or outcome["transport_errors"]
                       or outcome["missing_request_ids"] or outcome["hostile_findings"]),
    }
    write_json(Path(args.output), report)
    print(f"fuzz: {report['requests']} requests over {report['operations']} operations in "
          f"{report['elapsed_seconds']} s{' (time cap reached)' if report['time_capped'] else ''}")
    for item in report["server_errors"]:
        print(f"  5xx  {item['status']} {item['method']} {item['path']}  x{item['occurrences']}  "
              f"{item['request']['url']}")
    for item in report["bad_error_bodies"]:
        print(f"  body {item['status']} {item['method']} {item['path']}: {item['problem']}  {item['response'][:120]}")
    for item in report["transport_errors"]:
        print(f"  conn {item['operation']}: {item['error'][:160]}")
    for item in report["missing_request_ids"]:
        print(f"  no X-Request-Id: {item['operation']} ({item['status']})")
    for item in report["hostile_findings"]:
        print(f"  hostile {item['operation']} [{item['case']}]: {item.get('problem') or item.get('error')}")
    print(f"fuzz: {report['successes']} 2xx answers; {report['operations_with_success']} of {report['operations']} "
          f"operations answered at least one 2xx")
    print(f"fuzz: {'passed' if report['passed'] else 'FAILED'}; details in {args.output}")
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
