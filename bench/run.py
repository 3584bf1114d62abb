"""The service's benchmarks: every figure is a ratio or a count inside one run, with its target.

    .venv/bin/python bench/run.py            # make bench
    .venv/bin/python bench/run.py --calls 50 --scales 10,100   # a quicker look

On a fresh Postgres database (TEST_DATABASE_URL's server, or a throwaway cluster):
  1. request latency through the real request path (the Chalice app called with an API Gateway
     proxy event) against the primary-key floor (one primary-key lookup through the driver alone)
     and against the same SQL replayed through the driver alone; pg8000 and psycopg side by side;
     median and p95 over --calls calls (default 200), lists at 100 rows. Targets on pg8000 vs the
     floor: detail 10x, 100-row list 15x, GET /api/me 5x, task create 20x (queue configured: SQS,
     moto in process); vs its own SQL: detail 2.0, list 3.0.
  2. SQL statements per request at 10, 100 and 1,000 rows: constant in the row count.
  3. database round trips and protocol messages per request (a counting proxy on the wire), with
     pg8000 and with psycopg (`postgresql+psycopg`).
  4. cold start: the import of each area's function (WMS_MODULES=<area>) vs a floor app
     (bench/floor_app.py) and the whole app. Target: an area at most 1.15x the floor.
  5. peak memory (max RSS) of one request-handler process.
  6. scaling: the first 500-row page of the task and project lists at 1,000 and 50,000 rows
     (tests/bulk_data.py); target: within 1.3 times.
Results: bench/results/bench.json and bench/results/bench.md (also printed).
"""
from __future__ import annotations

import argparse
import json
import statistics
from contextlib import contextmanager
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import coldstart  # noqa: E402
from bench.apigw import DirectReplay, PrimaryKeyFloor, capture_sql, invoke, proxy_event  # noqa: E402
from bench.harness import (  # noqa: E402
    PROJECT_DIR, RESULTS_DIR, apply_environment, create_user, fresh_database, fresh_databases, migrate,
    service_environment, token_for,
    write_json,
)
from bench.pgproxy import CountingProxy  # noqa: E402
from bench.scenarios import PORTAL_TOKEN, Dataset, select  # noqa: E402
from chalicelib.areas import AREAS as ALL_AREAS  # noqa: E402 - the names only: no area is imported

EXECUTIVE_EMAIL = "bench.executive@agency.test"
DRIVERS = ("pg8000", "psycopg")
COLD_START_TARGET = 1.15  # an area's function import / the floor app's (issue 11 item 7)
AREAS = tuple(ALL_AREAS)  # every area's function (infra/areas.json): the cold-start target is per area


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200, help="calls per latency figure (at least 200 for make bench)")
    parser.add_argument("--scales", default="10,100,1000", help="row counts for statements and round trips")
    parser.add_argument("--latency-rows", type=int, default=100, help="rows behind a list for its latency")
    parser.add_argument("--detail-rows", type=int, default=10,
                        help="children of the record behind a detail read or an update for its latency")
    parser.add_argument("--import-runs", type=int, default=5, help="fresh interpreters per import figure")
    parser.add_argument("--skip-coldstart", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument("--scaling-calls", type=int, default=60, help="requests per figure of the scaling bench")
    parser.add_argument("--only", default=None,
                        help="comma-separated substrings of endpoint names or areas: measure only those endpoints")
    parser.add_argument("--output", default=str(RESULTS_DIR))
    return parser.parse_args(argv)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


class Bench:
    def __init__(self, app, url: str, token: str, dataset: Dataset) -> None:
        self.app = app
        self.url = url
        self.token = token
        self.ds = dataset
        self.sequence = 0
        self.queue_url = None  # the notifications queue, drained after each timed call of a queue endpoint

    def event(self, endpoint):
        self.sequence += 1
        body = endpoint.body(self.ds, self.sequence) if endpoint.body else None
        if endpoint.headers is not None:
            return proxy_event(endpoint.method, endpoint.resource, endpoint.params(self.ds), query=endpoint.query,
                               body=body, headers=endpoint.headers(self.ds))
        return proxy_event(endpoint.method, endpoint.resource, endpoint.params(self.ds), query=endpoint.query,
                           body=body, token=self.token)

    def call(self, endpoint) -> dict:
        response = invoke(self.app, self.event(endpoint))
        if response["statusCode"] >= 400:
            raise RuntimeError(f"{endpoint.name}: {response['statusCode']} {response['body'][:300]}")
        return response

    def statements(self, endpoint) -> list:
        from chalicelib.core.db import get_engine

        self.call(endpoint)  # warm: pool connection, caches
        with capture_sql(get_engine()) as captured:
            self.call(endpoint)
        return captured

    def latency(self, endpoint, calls: int, driver: str = "pg8000") -> dict:
        """Request path, direct replay of its own SQL and the primary-key floor, interleaved call by call
        so that load on the machine (other processes, the database's caches) weighs on all three alike.
        `driver`: the one the app runs on (DATABASE_URL set by the caller), replay and floor use it too."""
        for _ in range(10):
            self.call(endpoint)
        captured = self.statements(endpoint)
        if endpoint.queue and self.queue_url:
            self.drain_queue()
        replay = DirectReplay(self.url, driver)
        floor = PrimaryKeyFloor(self.url, self.ds.executive_id, driver)
        bare = PrimaryKeyFloor(self.url, self.ds.executive_id, driver, transaction=False) if driver == "pg8000" else None
        app_samples, sql_samples, floor_samples, bare_samples = [], [], [], []
        try:
            if not endpoint.commit_replay:
                replay.delete_inserted(captured)
            for _ in range(10):
                replay.run(captured, commit=endpoint.commit_replay)
                floor.run()
                if bare is not None:
                    bare.run()
            for _ in range(calls):
                event = self.event(endpoint)
                start = time.perf_counter()
                response = invoke(self.app, event)
                app_samples.append((time.perf_counter() - start) * 1000)
                assert response["statusCode"] < 400, response
                if endpoint.queue and self.queue_url:
                    self.drain_queue()
                start = time.perf_counter()
                replay.run(captured, commit=endpoint.commit_replay)
                sql_samples.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                floor.run()
                floor_samples.append((time.perf_counter() - start) * 1000)
                if bare is not None:
                    start = time.perf_counter()
                    bare.run()
                    bare_samples.append((time.perf_counter() - start) * 1000)
        finally:
            replay.close()
            floor.close()
            if bare is not None:
                bare.close()
        app_median, sql_median = statistics.median(app_samples), statistics.median(sql_samples)
        app_p95, sql_p95 = percentile(app_samples, 0.95), percentile(sql_samples, 0.95)
        floor_median, floor_p95 = statistics.median(floor_samples), percentile(floor_samples, 0.95)
        vs_floor = app_median / floor_median
        floor_target = endpoint.floor_target if driver == "pg8000" else None
        return {
            "driver": driver, "calls": calls, "statements": len(captured),
            "request_ms": {"median": round(app_median, 3), "p95": round(app_p95, 3)},
            "direct_sql_ms": {"median": round(sql_median, 3), "p95": round(sql_p95, 3)},
            "pk_floor_ms": {"median": round(floor_median, 3), "p95": round(floor_p95, 3)},
            "overhead_ratio": {"median": round(app_median / sql_median, 2), "p95": round(app_p95 / sql_p95, 2)},
            "vs_pk_floor": {"median": round(vs_floor, 2), "p95": round(app_p95 / floor_p95, 2)},
            # the same lookup without BEGIN and COMMIT (pg8000 only), as the app's reads now run: for comparison
            "pk_floor_no_transaction_ms": (round(statistics.median(bare_samples), 3) if bare_samples else None),
            "vs_pk_floor_no_transaction": (round(app_median / statistics.median(bare_samples), 2)
                                           if bare_samples else None),
            "target": endpoint.target_ratio if driver == "pg8000" else None,
            "meets_target": (None if endpoint.target_ratio is None or driver != "pg8000"
                             else app_median / sql_median <= endpoint.target_ratio),
            "floor_target": floor_target,
            "meets_floor_target": None if floor_target is None else vs_floor <= floor_target,
        }

    def drain_queue(self) -> None:
        """Empty the notifications queue, untimed, as the worker keeps it in production: moto's send reads
        every message already queued (its queue attributes), so a queue that only grows would charge each
        create for all the bench's earlier ones (4 ms at 200 calls), which SQS does not."""
        import boto3

        sqs = boto3.client("sqs", region_name="ap-southeast-2")
        while True:  # as the worker does: receive and delete (PurgeQueue is allowed once a minute)
            messages = sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10).get("Messages", [])
            if not messages:
                return
            sqs.delete_message_batch(QueueUrl=self.queue_url, Entries=[
                {"Id": str(index), "ReceiptHandle": m["ReceiptHandle"]} for index, m in enumerate(messages)])

    def round_trips(self, endpoint, proxy: CountingProxy, repeat: int = 3) -> dict:
        self.call(endpoint)
        trips, messages = proxy.snapshot()
        for _ in range(repeat):
            self.call(endpoint)
        trips2, messages2 = proxy.snapshot()
        return {"round_trips": round((trips2 - trips) / repeat, 1), "messages": round((messages2 - messages) / repeat, 1)}


def statements_constant(endpoint, statements: dict) -> bool:
    """The statement count does not grow with the rows. A paged read (`limit` in its query, or its page_size)
    skips its count statement while the first page is short (core.query.paginate: one statement fewer below the
    page size), so its count is compared at the row counts that fill the page; below, it may only be lower."""
    counts = {int(rows): count for rows, count in statements.items()}
    limit = endpoint.page_size or int((endpoint.query or {}).get("limit", 0) or 0)
    full = [count for rows, count in counts.items() if limit and rows >= limit]
    if len(full) < 2:
        return len(set(counts.values())) == 1 or (bool(full) and all(c <= full[0] for c in counts.values())
                                                  and max(full) - min(counts.values()) <= 1)
    return len(set(full)) == 1 and all(count <= full[0] for count in counts.values())


def use_database(env: dict, url: str) -> None:
    apply_environment({**env, "DATABASE_URL": url})


def with_driver(url: str, driver: str) -> str:
    from sqlalchemy.engine import make_url

    u = make_url(url).set(drivername=f"postgresql+{driver}")
    if driver == "psycopg":
        u = u.update_query_dict({"sslmode": "disable", "gssencmode": "disable"})
    return u.render_as_string(hide_password=False)


def through_proxy(url: str, port: int, driver: str) -> str:
    from sqlalchemy.engine import make_url

    u = make_url(url).set(drivername=f"postgresql+{driver}", host="127.0.0.1", port=port)
    if driver == "psycopg":
        u = u.update_query_dict({"sslmode": "disable", "gssencmode": "disable"})
    return u.render_as_string(hide_password=False)


def measured_commit() -> dict:
    """The commit the figures measure (and whether the work tree differed from it)."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", *args], cwd=PROJECT_DIR, capture_output=True, text=True).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "subject": git("log", "-1", "--format=%s")[:120],
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


@contextmanager
def sqs_queue():
    """The notifications queue configured as in production (SQS, here moto in process): the environment
    that points the service at it."""
    from moto import mock_aws

    with mock_aws():
        import boto3

        sqs = boto3.client("sqs", region_name="ap-southeast-2")
        queue_url = sqs.create_queue(QueueName="wms-bench-notifications")["QueueUrl"]
        from chalicelib.core.aws import reset_clients

        reset_clients()
        try:
            yield {"NOTIFICATIONS_QUEUE_URL": queue_url}
        finally:
            reset_clients()


def scaling(calls: int, small: int = 1_000, large: int = 50_000) -> dict:
    """The first 500-row page of the task and project lists (the request path, as executive: every row
    visible) with `small` rows in one database and `large` in another on the same server (tests/bulk_data.py),
    VACUUM ANALYZEd; the two alternate call by call (the app's engine switched between them), so that a
    change in the machine's load weighs on both alike; medians of `calls` requests each. Target: large
    within 1.3 times small (issue 11 item 3)."""
    from sqlalchemy import text

    from tests.bulk_data import insert_projects, insert_tasks

    result: dict = {"rows": [small, large], "calls": calls, "target": 1.3, "lists": {},
                    "method": "two databases, alternating call by call"}
    with fresh_databases("wms_scale", 2) as urls:
        env = service_environment(urls[0])
        engines = {}
        from chalicelib.core import db as core_db

        for n, url, prefix in ((small, urls[0], "s1"), (large, urls[1], "s2")):
            use_database(env, url)
            migrate(url)
            executive_id = create_user("scale.executive@agency.test", "Scale Executive", "executive")
            users = [executive_id] + [create_user(f"scale.user{i}@agency.test", f"Scale User {i}", "employee")
                                      for i in range(9)]
            engine = core_db.get_engine()
            with engine.begin() as conn:
                rows = conn.execute(text(
                    "SELECT i.id, l.key FROM config_list_items i JOIN config_lists l ON l.id = i.list_id "
                    "WHERE l.key IN ('task_status', 'task_priority')")).all()
                insert_tasks(conn, n, user_ids=users, status_ids=[i for i, key in rows if key == "task_status"],
                             priority_ids=[i for i, key in rows if key == "task_priority"], prefix=prefix)
                insert_projects(conn, n, user_ids=users, prefix=prefix)
            # VACUUM ANALYZE, as autovacuum leaves a table in production: statistics for the planner and the
            # visibility map (VACUUM runs outside a transaction)
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                for table in ("tasks", "task_todos", "task_watchers", "projects", "project_members"):
                    conn.execute(text(f"VACUUM ANALYZE {table}"))
            engines[n] = engine
            core_db._engine = None  # the next database gets its own engine; this one is kept for the calls
        token = token_for("scale.executive@agency.test")  # one secret for both (the same environment)
        from app import app

        lists = {"task list": ("/api/tasks", "tasks"), "project list": ("/api/projects", "projects")}
        try:
            for name, (resource, key) in lists.items():
                event = proxy_event("GET", resource, token=token)
                samples: dict[int, list[float]] = {small: [], large: []}
                for n in (small, large):
                    core_db._engine = engines[n]
                    for _ in range(5):
                        response = invoke(app, event)
                        assert response["statusCode"] == 200, response
                    # the page came from this size's database: 500 rows of `n` (counted up to COUNT_LIMIT)
                    body = json.loads(response["body"])
                    assert len(body[key]) == 500 and body["total"] == min(n, 10_000), (name, n, body["total"])
                for _ in range(calls):
                    for n in (small, large):
                        core_db._engine = engines[n]
                        start = time.perf_counter()
                        response = invoke(app, event)
                        samples[n].append((time.perf_counter() - start) * 1000)
                        assert response["statusCode"] == 200, response
                for n in (small, large):
                    result["lists"].setdefault(name, {})[str(n)] = {
                        "median_ms": round(statistics.median(samples[n]), 2),
                        "p95_ms": round(percentile(samples[n], 0.95), 2)}
                    print(f"  {name} at {n} rows: {statistics.median(samples[n]):.2f} ms", flush=True)
        finally:
            core_db._engine = None
            for engine in engines.values():
                engine.dispose()
        for figures in result["lists"].values():
            figures["ratio"] = round(figures[str(large)]["median_ms"] / figures[str(small)]["median_ms"], 2)
            figures["meets_target"] = figures["ratio"] <= result["target"]
    return result


def run(args) -> dict:
    scales = [int(s) for s in args.scales.split(",") if s.strip()]
    report: dict = {"generated_at": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
                    "measures": measured_commit(),
                    "python": sys.version.split()[0], "calls": args.calls, "scales": scales,
                    "latency_rows": args.latency_rows, "detail_rows": args.detail_rows, "skipped": [], "endpoints": {}}
    with fresh_database("wms_bench") as url, sqs_queue() as queue_env:
        env = {**service_environment(url), "PORTAL_SERVICE_TOKEN": PORTAL_TOKEN}
        use_database(env, url)
        migrate(url)
        executive_id = create_user(EXECUTIVE_EMAIL, "Bench Executive", "executive")
        token = token_for(EXECUTIVE_EMAIL)
        from app import app

        selected = select(args.only)
        dataset = Dataset(app=app, executive_id=executive_id, endpoints=selected)
        bench = Bench(app, url, token, dataset)
        bench.queue_url = queue_env["NOTIFICATIONS_QUEUE_URL"]
        endpoints = []
        for endpoint in selected:
            if dataset.has_route(endpoint):
                endpoints.append(endpoint)
                report["endpoints"][endpoint.name] = {"area": endpoint.area, "route": f"{endpoint.method} {endpoint.resource}",
                                                      "kind": endpoint.kind, "rows_mean": endpoint.rows,
                                                      "statements": {}, "round_trips": {"pg8000": {}, "psycopg": {}}}
            else:
                line = f"skipped {endpoint.name}: {endpoint.method} {endpoint.resource} is not in the app (area {endpoint.area})"
                report["skipped"].append(line)
                print(line, flush=True)

        from sqlalchemy.engine import make_url

        server = make_url(url)
        proxy = CountingProxy(server.host or "127.0.0.1", server.port or 5432)
        try:
            for rows in sorted(set(scales) | {args.latency_rows, args.detail_rows}):
                dataset.scale(rows)
                print(f"bench: {rows} rows", flush=True)
                for endpoint in endpoints:
                    entry = report["endpoints"][endpoint.name]
                    endpoint_env = {**env, **queue_env} if endpoint.queue else env
                    use_database(endpoint_env, url)
                    if rows in scales:
                        entry["statements"][str(rows)] = len(bench.statements(endpoint))
                    if rows == (args.detail_rows if endpoint.per_record else args.latency_rows):
                        entry["latency"] = {"rows": rows}
                        for driver in DRIVERS:
                            use_database(endpoint_env, with_driver(url, driver))
                            figure = entry["latency"][driver] = bench.latency(endpoint, args.calls, driver)
                            print(f"  {endpoint.name:34s} {driver:7s} vs PK floor {figure['vs_pk_floor']['median']:6.2f} "
                                  f"vs own SQL {figure['overhead_ratio']['median']:5.2f} "
                                  f"(request {figure['request_ms']['median']:.2f} ms, "
                                  f"SQL {figure['direct_sql_ms']['median']:.2f} ms, "
                                  f"floor {figure['pk_floor_ms']['median']:.3f} ms)", flush=True)
                    if rows in scales:
                        for driver in DRIVERS:
                            use_database(endpoint_env, through_proxy(url, proxy.port, driver))
                            entry["round_trips"][driver][str(rows)] = bench.round_trips(endpoint, proxy)
                use_database(env, url)
        finally:
            proxy.close()
            use_database(env, url)

        for endpoint in endpoints:
            entry = report["endpoints"][endpoint.name]
            entry["statements_constant"] = statements_constant(endpoint, entry["statements"])
            trips = {v["round_trips"] for v in entry["round_trips"]["pg8000"].values()}
            entry["round_trips_constant"] = len(trips) == 1

        if not args.skip_coldstart:
            print("bench: cold start", flush=True)
            present = [area for area in AREAS if any(e.area == area for e in endpoints)] or list(AREAS)
            infra = coldstart.infra_import_time(env, Path(args.output) / "bench_import_time.json", args.import_runs)
            if infra and infra.get("modes"):
                report["cold_start"] = infra
            else:
                report["cold_start"] = {"source": "bench/coldstart.py", "infra_error": (infra or {}).get("error"),
                                        "modes": {"cached": coldstart.import_times(env, list(AREAS), runs=args.import_runs)}}
            for figures in report["cold_start"]["modes"].values():
                floor, whole = figures["floor"]["median_ms"], figures["whole_app"]["median_ms"]
                for figure in figures["areas"].values():
                    # the median of each sample against the floor samples beside it (bench/import_time.py), when
                    # measured so; else the two medians
                    paired = figure.get("x_floor_paired")
                    figure["vs_floor_of_medians"] = round(figure["median_ms"] / floor, 2)
                    figure["vs_floor"] = round(paired, 2) if paired else figure["vs_floor_of_medians"]
                    figure["vs_whole_app"] = round(figure["median_ms"] / whole, 2)
                    figure["meets_target"] = figure["vs_floor"] <= COLD_START_TARGET
                figures["floor_vs_whole_app"] = round(floor / whole, 2)
            report["cold_start"]["breakdown"] = {
                "whole_app": coldstart.import_breakdown(env, "app"),
                "floor_app": coldstart.import_breakdown(env, "bench.floor_app"),
                "tasks_function": coldstart.import_breakdown({**env, "WMS_MODULES": "tasks"}, "app"),
            }
            reads = [(e, [e.method, e.resource, e.params(dataset), e.query, None,
                          e.headers(dataset) if e.headers else None]) for e in endpoints if e.method == "GET"]
            report["memory"] = {
                "whole_app": coldstart.peak_memory(env, token, [r for _e, r in reads]),
                "floor_app_import": coldstart.floor_peak_memory(env),
                "areas": {area: coldstart.peak_memory(env, token, [r for e, r in reads if e.area == area], area)
                          for area in present},
            }
    return report


def verdict(ok) -> str:
    return "n/a" if ok is None else ("meets" if ok else "MISSES")


def markdown(report: dict) -> str:
    lines = [f"# Benchmarks ({report['generated_at']}, Python {report['python']})", ""]
    for line in report["skipped"]:
        lines.append(f"- {line}")
    measures = report.get("measures") or {}
    if measures:
        lines += [f"Measures commit {measures['commit']} ({measures['subject']})"
                  + (", with uncommitted changes" if measures.get("dirty") else "") + "."]
    lines += ["", f"## Request latency vs the primary-key floor and vs its own SQL, pg8000 and psycopg ({report['calls']} calls each)", "",
              f"Lists and creates at {report['latency_rows']} rows (a 100-row page); detail reads and updates on a record with "
              f"{report['detail_rows']} children. PK floor: one `SELECT * FROM users WHERE id = %s` fetched and committed "
              "through the driver alone, in the DB-API's transaction (BEGIN, the statement, COMMIT: three round trips on "
              "pg8000 as the app configures it); the app's requests open their transaction with their first write, so a "
              "GET that only reads pays neither BEGIN nor COMMIT (docs/decisions/infra.md). The column \"vs floor without "
              "transaction\" sets the request against the same lookup without them (one round trip), for comparison; the "
              "targets are read against the first. Own SQL: the statements the request ran, replayed through the driver alone (it "
              "hides the planning cost: Postgres plans them again either way, but the app pays nothing else). The three "
              "alternate call by call. Targets on pg8000 (issue 11 item 6): detail <= 10x the floor, 100-row lists <= 15x, "
              "GET /api/me <= 5x, task create <= 20x with the queue configured (SQS, moto in process); in-process "
              "delivery is reported apart.", "",
              "| endpoint | statements | pg8000 request ms | pg8000 floor ms | pg8000 vs floor (target) | "
              "pg8000 vs floor without transaction | pg8000 vs own SQL | "
              "psycopg request ms | psycopg floor ms | psycopg vs floor | psycopg vs own SQL | verdict |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, entry in report["endpoints"].items():
        lat = entry.get("latency")
        if not lat:
            continue
        a, b = lat.get("pg8000") or {}, lat.get("psycopg") or {}

        def cells(f, with_target=False):
            if not f:
                return ["-"] * (5 if with_target else 4)
            target = f" ({f['floor_target']})" if with_target and f.get("floor_target") else ""
            bare = f.get("vs_pk_floor_no_transaction")
            return [f"{f['request_ms']['median']:.2f}", f"{f['pk_floor_ms']['median']:.3f}",
                    f"{f['vs_pk_floor']['median']:.2f}{target}",
                    *([("-" if bare is None else f"{bare:.2f}")] if with_target else []),
                    f"{f['overhead_ratio']['median']:.2f}"]

        lines.append("| " + " | ".join([name, str(a.get("statements", "-")), *cells(a, True), *cells(b),
                                         verdict(a.get("meets_floor_target"))]) + " |")
    scaling = report.get("scaling")
    if scaling:
        small, large = (str(n) for n in scaling["rows"])
        lines += ["", f"## Scaling: the first 500-row page at {small} and {large} rows ({scaling['calls']} requests each)", "",
                  f"Target: at {large} rows within {scaling['target']} times the figure at {small} (issue 11 item 3).", "",
                  f"| list | {small} rows median / p95 ms | {large} rows median / p95 ms | ratio | verdict |", "|---|---|---|---|---|"]
        for name, figures in scaling["lists"].items():
            lines.append(f"| {name} | {figures[small]['median_ms']:.2f} / {figures[small]['p95_ms']:.2f} | "
                         f"{figures[large]['median_ms']:.2f} / {figures[large]['p95_ms']:.2f} | {figures['ratio']} | "
                         f"{verdict(figures['meets_target'])} |")
    scales = [str(s) for s in report["scales"]]
    lines += ["", "## SQL statements and database round trips per request", "",
              "Round trips and frontend protocol messages counted on the wire (pg8000 / psycopg). A paged list "
              "(`limit=100`) runs its count statement only when the first page is full, so it runs one statement "
              "fewer below 100 rows; its verdict compares the row counts that fill the page.", "",
              "| endpoint | rows mean | statements at " + ", ".join(scales) + " | constant | round trips pg8000 | "
              "round trips psycopg | messages pg8000 | messages psycopg |", "|---|---|---|---|---|---|---|---|"]
    for name, entry in report["endpoints"].items():
        st = " / ".join(str(entry["statements"].get(s, "-")) for s in scales)
        rt8 = " / ".join(str(entry["round_trips"]["pg8000"].get(s, {}).get("round_trips", "-")) for s in scales)
        rtp = " / ".join(str(entry["round_trips"]["psycopg"].get(s, {}).get("round_trips", "-")) for s in scales)
        ms8 = " / ".join(str(entry["round_trips"]["pg8000"].get(s, {}).get("messages", "-")) for s in scales)
        msp = " / ".join(str(entry["round_trips"]["psycopg"].get(s, {}).get("messages", "-")) for s in scales)
        lines.append(f"| {name} | {entry['rows_mean']} | {st} | {verdict(entry['statements_constant'])} | {rt8} | {rtp} | {ms8} | {msp} |")
    cold = report.get("cold_start")
    if cold:
        for mode, figures in cold["modes"].items():
            lines += ["", f"## Cold start: import of one function, {mode} bytecode (source: {cold['source']})", "",
                      f"Floor app: {figures['floor']['median_ms']} ms ({figures['floor']['modules_loaded']} modules). "
                      f"Whole app: {figures['whole_app']['median_ms']} ms ({figures['whole_app']['modules_loaded']} "
                      f"modules). The floor is {figures['floor_vs_whole_app']}x the whole app. \"vs floor\": the median, "
                      "over the rounds, of each import against the floor's imports just before and after it (the floor "
                      "is sampled every few functions: the machine's load changes within a round); \"of medians\": "
                      "the area's median over the floor's.", "",
                      f"| area function | import ms | modules | vs floor (target <= {COLD_START_TARGET}) | vs floor, of "
                      "medians | vs whole app | verdict |",
                      "|---|---|---|---|---|---|---|"]
            for area, figure in figures["areas"].items():
                lines.append(f"| {area} | {figure['median_ms']} | {figure['modules_loaded']} | {figure['vs_floor']} | "
                             f"{figure.get('vs_floor_of_medians', '-')} | {figure['vs_whole_app']} | "
                             f"{verdict(figure['meets_target'])} |")
    if cold and cold.get("breakdown"):
        lines += ["", "Where the import time goes (`python -X importtime`, cached bytecode, self time per top-level "
                  "package, one run):", "", "| import | top packages (ms) |", "|---|---|"]
        for name, rows in cold["breakdown"].items():
            lines.append(f"| {name} | " + ", ".join(f"{r['package']} {r['self_ms']}" for r in rows[:8]) + " |")
    memory = report.get("memory")
    if memory:
        lines += ["", "## Peak memory (max RSS) of one request-handler process", "", "| process | peak RSS MB | requests |",
                  "|---|---|---|",
                  f"| whole app, every GET above x3 | {memory['whole_app'].get('peak_rss_mb', memory['whole_app'].get('error', '?')[:80])} | {memory['whole_app'].get('requests', '-')} |",
                  f"| floor app (import only) | {memory['floor_app_import']['peak_rss_mb']} | 0 |"]
        for area, figure in memory["areas"].items():
            lines.append(f"| {area} function (WMS_MODULES={area}) | {figure.get('peak_rss_mb', figure.get('error', '?')[:80])} | {figure.get('requests', '-')} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    report = run(args)
    if not args.skip_scaling:
        print("bench: scaling", flush=True)
        report["scaling"] = scaling(args.scaling_calls)
    out = Path(args.output)
    write_json(out / "bench.json", report)
    text = markdown(report)
    (out / "bench.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
