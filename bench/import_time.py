"""Cold import time of each area's Lambda function, of the whole app, and of a bare Chalice app.

    .venv/bin/python bench/import_time.py [--repeat 5] [--modes cached,uncached]

Every sample is a fresh interpreter that times only `import app` (its own start-up excluded) with
`WMS_MODULES=<area>` (one area's function), unset (the whole app, as one function would be), or a
bare Chalice app (`from chalice import Chalice` and one route). The figure is the median of the
repetitions. Two modes:

- `cached`: Python's bytecode cache (`__pycache__`) is present, as on a developer machine;
- `uncached`: no bytecode cache at all (an empty PYTHONPYCACHEPREFIX, nothing written), as in
  Lambda, where `chalice package` ships no .pyc files and /var/task is read-only, so every module
  is compiled at cold start.

Prints a table with the ratio of each function to the bare app and to the whole app, and writes
`bench/results/import_time.json`. `bench/floor_app.py`, when present, is measured too (the
least a function of this service could import).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "import_time.json"

TIMER = (
    "import sys, time\n"
    "sys.path.insert(0, {path!r})\n"
    "start = time.perf_counter()\n"
    "import {module}\n"
    "elapsed = time.perf_counter() - start\n"
    "areas = sorted({{n.split('.')[2] for n in sys.modules if n.startswith('chalicelib.areas.')}})\n"
    "print(elapsed, len(sys.modules), ','.join(areas))\n"
)

BARE_APP = '''from chalice import Chalice

app = Chalice(app_name="bare")


@app.route("/")
def index():
    return {"hello": "world"}
'''


def sample(module: str, path: Path, env: dict, uncached: bool) -> tuple[float, int, str]:
    env = dict(env)
    command = [sys.executable]
    if uncached:
        command.append("-B")  # write no bytecode...
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="wms-nopyc-")  # ...and find none
    command += ["-c", TIMER.format(path=str(path), module=module)]
    try:
        result = subprocess.run(command, cwd=path, env=env, capture_output=True, text=True, timeout=300)
    finally:
        if uncached:
            shutil.rmtree(env["PYTHONPYCACHEPREFIX"], ignore_errors=True)
    if result.returncode != 0:
        raise RuntimeError(f"import {module} failed:\n{result.stderr}")
    elapsed, modules, areas = (result.stdout.strip().splitlines()[-1].split(" ") + [""])[:3]
    return float(elapsed), int(modules), areas


FLOOR_EVERY = 4  # within a round, the floor app is sampled again after this many other targets


def measure_interleaved(targets, repeat: int, uncached: bool, floor: str | None = None) -> list[dict]:
    """`measure` for every target, round by round (each round samples every target once), so that a
    passing load on the machine weighs on the floor and the areas alike instead of on whichever was being
    measured at the time. With `floor` (a target's name), the floor is sampled again every FLOOR_EVERY
    targets of a round, and each other sample is set against the mean of the floor samples just before and
    after it: `x_floor_paired` is the median of those ratios. A round lasts about half a minute (a few
    minutes uncached), long enough for the machine's load to change within it: one run gave two areas that
    load 547 and 543 modules 1.27 and 1.28 times the floor's median, beside areas of 567 modules at 1.16."""
    samples: dict[str, list[float]] = {name: [] for name, *_ in targets}
    ratios: dict[str, list[float]] = {name: [] for name, *_ in targets}
    last: dict[str, tuple[int, str]] = {}
    floor_target = next((t for t in targets if t[0] == floor), None)
    others = [t for t in targets if t[0] != floor]

    def take(target):
        name, module, path, target_env = target
        elapsed, modules, areas = sample(module, path, target_env, uncached)
        samples[name].append(elapsed)
        last[name] = (modules, areas)
        return elapsed

    for _ in range(repeat):
        if floor_target is None:
            for target in targets:
                take(target)
            continue
        for start in range(0, len(others), FLOOR_EVERY):
            before = take(floor_target)
            group = [(target[0], take(target)) for target in others[start:start + FLOOR_EVERY]]
            after = take(floor_target)
            for name, elapsed in group:
                ratios[name].append(elapsed / ((before + after) / 2))
    return [{
        "name": name,
        "median_ms": round(statistics.median(samples[name]) * 1000, 1),
        "min_ms": round(min(samples[name]) * 1000, 1),
        "max_ms": round(max(samples[name]) * 1000, 1),
        "samples_ms": [round(s * 1000, 1) for s in samples[name]],
        "x_floor_paired": round(statistics.median(ratios[name]), 3) if ratios[name] else None,
        "modules": last[name][0],
        "areas_loaded": [a for a in last[name][1].split(",") if a],
    } for name, *_ in targets]


def base_env(data_dir: str) -> dict:
    drop = ("WMS_MODULES", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["WMS_DATA_DIR"] = data_dir
    return env


def run(repeat: int, modes: list[str]) -> dict:
    sys.path.insert(0, str(ROOT))
    from chalicelib.areas import AREAS

    data_dir = tempfile.mkdtemp(prefix="wms-bench-data-")
    env = base_env(data_dir)
    bare_dir = Path(tempfile.mkdtemp(prefix="wms-bare-"))
    (bare_dir / "bare_app.py").write_text(BARE_APP)

    targets: list[tuple[str, str, Path, dict]] = [("bare chalice", "bare_app", bare_dir, env)]
    if (ROOT / "bench" / "floor_app.py").exists():
        targets.append(("floor app", "bench.floor_app", ROOT, env))
    targets.append(("whole app", "app", ROOT, env))
    for area in AREAS:
        targets.append((area, "app", ROOT, {**env, "WMS_MODULES": area}))

    report: dict = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "repeat": repeat,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "statistic": "median of fresh interpreters, import only (interpreter start-up excluded)",
        "modes": {},
    }
    for mode in modes:
        uncached = mode == "uncached"
        if not uncached:  # make sure the bytecode cache exists before timing the cached mode
            for _, module, path, target_env in targets:
                sample(module, path, target_env, False)
        rows = measure_interleaved(targets, repeat, uncached,
                                   floor="floor app" if any(t[0] == "floor app" for t in targets) else None)
        by_name = {row["name"]: row for row in rows}
        bare = by_name["bare chalice"]["median_ms"]
        whole = by_name["whole app"]["median_ms"]
        for row in rows:
            row["x_bare_chalice"] = round(row["median_ms"] / bare, 2) if bare else None
            row["x_whole_app"] = round(row["median_ms"] / whole, 2) if whole else None
        areas = [by_name[a]["median_ms"] for a in AREAS]
        report["modes"][mode] = {
            "rows": rows,
            "summary": {
                "bare_chalice_ms": bare,
                "whole_app_ms": whole,
                "slowest_area": max(AREAS, key=lambda a: by_name[a]["median_ms"]),
                "slowest_area_ms": max(areas),
                "median_area_ms": statistics.median(areas),
                "median_area_x_whole_app": round(statistics.median(areas) / whole, 2) if whole else None,
                "median_area_x_bare_chalice": round(statistics.median(areas) / bare, 2) if bare else None,
            },
        }
    report["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return report


def print_report(report: dict) -> None:
    for mode, data in report["modes"].items():
        print(f"\n{mode} bytecode ({report['repeat']} fresh interpreters each, median import time)")
        print(f"{'function':<16} {'median ms':>10} {'min':>8} {'max':>8} {'modules':>8} {'x bare':>7} {'x whole':>8}")
        for row in data["rows"]:
            print(f"{row['name']:<16} {row['median_ms']:>10.1f} {row['min_ms']:>8.1f} {row['max_ms']:>8.1f} "
                  f"{row['modules']:>8} {row['x_bare_chalice']:>7.2f} {row['x_whole_app']:>8.2f}")
        s = data["summary"]
        print(f"median area: {s['median_area_ms']:.1f} ms = {s['median_area_x_whole_app']}x the whole app, "
              f"{s['median_area_x_bare_chalice']}x a bare Chalice app; slowest: {s['slowest_area']} "
              f"({s['slowest_area_ms']:.1f} ms)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cold import time per area function")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--modes", default="cached,uncached", help="comma-separated: cached, uncached")
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(modes) - {"cached", "uncached"}
    if unknown:
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    report = run(args.repeat, modes)
    print_report(report)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
