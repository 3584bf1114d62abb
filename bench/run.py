"""The service's benchmarks: every figure is a ratio or a count inside one run, with its target.

    .venv/bin/python bench/run.py            # make bench
    .venv/bin/python bench/run.py --calls 50 --scales 10,100   # a quicker look

On a fresh Postgres database (TEST_DATABASE_URL's server, or a throwaway cluster):
  1. overhead ratio: request latency through the real request path (the Chalice app called with
     an API Gateway proxy event) against the same SQL replayed through pg8000 alone; median and
     p95 over --calls calls (default 200), at 100 rows. Targets: at most 2.0 for a detail read,
     3.0 for a 100-row list.
  2. SQL statements per request at 10, 100 and 1,000 rows: constant in the row count.
  3. database round trips and protocol messages per request (a counting proxy on the wire), with
     pg8000 and with psycopg (`postgresql+psycopg`).
  4. cold start: the import of each area's function (WMS_MODULES=<area>) vs the whole app vs a
     floor app (bench/floor_app.py). Targets: an area at most 1.3x the floor and at most half
     the whole app.
  5. peak memory (max RSS) of one request-handler process.
Results: bench/results/bench.json and bench/results/bench.md (also printed).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import coldstart  # noqa: E402
from bench.apigw import DirectReplay, capture_sql, invoke, proxy_event  # noqa: E402
from bench.harness import (  # noqa: E402
    RESULTS_DIR, apply_environment, create_user, fresh_database, migrate, service_environment, token_for,
    write_json,
)
from bench.pgproxy import CountingProxy  # noqa: E402
from bench.scenarios import ENDPOINTS, Dataset  # noqa: E402

EXECUTIVE_EMAIL = "bench.executive@agency.test"
AREAS = ("tasks", "projects", "config_lists", "notifications", "admin", "deals", "sprints", "timesheets", "pages")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200, help="calls per latency figure (at least 200 for make bench)")
    parser.add_argument("--scales", default="10,100,1000", help="row counts for statements and round trips")
    parser.add_argument("--latency-rows", type=int, default=100, help="rows behind a list for its latency")
    parser.add_argument("--detail-rows", type=int, default=10,
                        help="children of the record behind a detail read or an update for its latency")
    parser.add_argument("--import-runs", type=int, default=5, help="fresh interpreters per import figure")
    parser.add_argument("--skip-coldstart", action="store_true")
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

    def event(self, endpoint):
        self.sequence += 1
        body = endpoint.body(self.ds, self.sequence) if endpoint.body else None
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

    def latency(self, endpoint, calls: int) -> dict:
        """Request path and direct replay, interleaved call by call so that load on the machine
        (other processes, the database's caches) weighs on both sides alike."""
        for _ in range(10):
            self.call(endpoint)
        captured = self.statements(endpoint)
        replay = DirectReplay(self.url)
        app_samples, sql_samples = [], []
        try:
            if not endpoint.commit_replay:
                replay.delete_inserted(captured)
            for _ in range(10):
                replay.run(captured, commit=endpoint.commit_replay)
            for _ in range(calls):
                event = self.event(endpoint)
                start = time.perf_counter()
                response = invoke(self.app, event)
                app_samples.append((time.perf_counter() - start) * 1000)
                assert response["statusCode"] < 400, response
                start = time.perf_counter()
                replay.run(captured, commit=endpoint.commit_replay)
                sql_samples.append((time.perf_counter() - start) * 1000)
        finally:
            replay.close()
        app_median, sql_median = statistics.median(app_samples), statistics.median(sql_samples)
        app_p95, sql_p95 = percentile(app_samples, 0.95), percentile(sql_samples, 0.95)
        return {
            "calls": calls, "statements": len(captured),
            "request_ms": {"median": round(app_median, 3), "p95": round(app_p95, 3)},
            "direct_sql_ms": {"median": round(sql_median, 3), "p95": round(sql_p95, 3)},
            "overhead_ratio": {"median": round(app_median / sql_median, 2), "p95": round(app_p95 / sql_p95, 2)},
            "target": endpoint.target_ratio,
            "meets_target": None if endpoint.target_ratio is None else app_median / sql_median <= endpoint.target_ratio,
        }

    def round_trips(self, endpoint, proxy: CountingProxy, repeat: int = 3) -> dict:
        self.call(endpoint)
        trips, messages = proxy.snapshot()
        for _ in range(repeat):
            self.call(endpoint)
        trips2, messages2 = proxy.snapshot()
        return {"round_trips": round((trips2 - trips) / repeat, 1), "messages": round((messages2 - messages) / repeat, 1)}


def use_database(env: dict, url: str) -> None:
    apply_environment({**env, "DATABASE_URL": url})


def through_proxy(url: str, port: int, driver: str) -> str:
    from sqlalchemy.engine import make_url

    u = make_url(url).set(drivername=f"postgresql+{driver}", host="127.0.0.1", port=port)
    if driver == "psycopg":
        u = u.update_query_dict({"sslmode": "disable", "gssencmode": "disable"})
    return u.render_as_string(hide_password=False)


def run(args) -> dict:
    scales = [int(s) for s in args.scales.split(",") if s.strip()]
    report: dict = {"generated_at": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
                    "python": sys.version.split()[0], "calls": args.calls, "scales": scales,
                    "latency_rows": args.latency_rows, "detail_rows": args.detail_rows, "skipped": [], "endpoints": {}}
    with fresh_database("wms_bench") as url:
        env = service_environment(url)
        use_database(env, url)
        migrate(url)
        executive_id = create_user(EXECUTIVE_EMAIL, "Bench Executive", "executive")
        token = token_for(EXECUTIVE_EMAIL)
        from app import app

        dataset = Dataset(app=app, executive_id=executive_id)
        bench = Bench(app, url, token, dataset)
        endpoints = []
        for endpoint in ENDPOINTS:
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
                    use_database(env, url)
                    if rows in scales:
                        entry["statements"][str(rows)] = len(bench.statements(endpoint))
                    if rows == (args.detail_rows if endpoint.per_record else args.latency_rows):
                        entry["latency"] = {"rows": rows, **bench.latency(endpoint, args.calls)}
                        print(f"  {endpoint.name:22s} ratio {entry['latency']['overhead_ratio']['median']:5.2f} "
                              f"(request {entry['latency']['request_ms']['median']:.2f} ms, "
                              f"SQL {entry['latency']['direct_sql_ms']['median']:.2f} ms)", flush=True)
                    if rows in scales:
                        for driver in ("pg8000", "psycopg"):
                            use_database(env, through_proxy(url, proxy.port, driver))
                            entry["round_trips"][driver][str(rows)] = bench.round_trips(endpoint, proxy)
                use_database(env, url)
        finally:
            proxy.close()
            use_database(env, url)

        for entry in report["endpoints"].values():
            counts = set(entry["statements"].values())
            entry["statements_constant"] = len(counts) == 1
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
                    figure["vs_floor"] = round(figure["median_ms"] / floor, 2)
                    figure["vs_whole_app"] = round(figure["median_ms"] / whole, 2)
                    figure["meets_target"] = figure["vs_floor"] <= 1.3 and figure["vs_whole_app"] <= 0.5
                figures["floor_vs_whole_app"] = round(floor / whole, 2)
            report["cold_start"]["breakdown"] = {
                "whole_app": coldstart.import_breakdown(env, "app"),
                "floor_app": coldstart.import_breakdown(env, "bench.floor_app"),
                "tasks_function": coldstart.import_breakdown({**env, "WMS_MODULES": "tasks"}, "app"),
            }
            reads = [(e, [e.method, e.resource, e.params(dataset), e.query, None]) for e in endpoints if e.method == "GET"]
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
    lines += ["", f"## Overhead ratio: request path vs the same SQL through pg8000 ({report['calls']} calls each)", "",
              f"Lists and creates at {report['latency_rows']} rows; detail reads and updates on a record with "
              f"{report['detail_rows']} children. Calls alternate between the two sides.", "",
              "| endpoint | rows | statements | request median / p95 ms | direct SQL median / p95 ms | ratio median / p95 | target | verdict |",
              "|---|---|---|---|---|---|---|---|"]
    for name, entry in report["endpoints"].items():
        lat = entry.get("latency")
        if not lat:
            continue
        lines.append(f"| {name} | {lat['rows']} | {lat['statements']} | {lat['request_ms']['median']:.2f} / {lat['request_ms']['p95']:.2f} | "
                     f"{lat['direct_sql_ms']['median']:.2f} / {lat['direct_sql_ms']['p95']:.2f} | "
                     f"{lat['overhead_ratio']['median']:.2f} / {lat['overhead_ratio']['p95']:.2f} | "
                     f"{lat['target'] if lat['target'] else '-'} | {verdict(lat['meets_target'])} |")
    scales = [str(s) for s in report["scales"]]
    lines += ["", "## SQL statements and database round trips per request", "",
              "Round trips and frontend protocol messages counted on the wire (pg8000 / psycopg).", "",
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
                      f"modules). The floor is {figures['floor_vs_whole_app']}x the whole app.", "",
                      "| area function | import ms | modules | vs floor (target <= 1.3) | vs whole app (target <= 0.5) | verdict |",
                      "|---|---|---|---|---|---|"]
            for area, figure in figures["areas"].items():
                lines.append(f"| {area} | {figure['median_ms']} | {figure['modules_loaded']} | {figure['vs_floor']} | "
                             f"{figure['vs_whole_app']} | {verdict(figure['meets_target'])} |")
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
    out = Path(args.output)
    write_json(out / "bench.json", report)
    text = markdown(report)
    (out / "bench.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
