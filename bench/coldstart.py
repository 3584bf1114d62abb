"""Cold start and memory: each area's function import vs the whole app vs the floor app; peak
memory of one request-handler process.

Each figure comes from fresh interpreters (median of several), timing only the import (the
interpreter's own start-up is excluded). `bench/import_time.py`, when present, is the infra
helper's measurement; its output is kept beside ours.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from bench.harness import PROJECT_DIR

_TIMER = (
    "import sys, time\n"
    "sys.path.insert(0, {path!r})\n"
    "start = time.perf_counter()\n"
    "import {module}\n"
    "elapsed = time.perf_counter() - start\n"
    "print(elapsed, len(sys.modules))\n"
)


def _time_import(module: str, env: dict, path: str, runs: int) -> dict:
    samples, modules = [], 0
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _TIMER.format(module=module, path=path)], cwd=PROJECT_DIR,
                             env=env, capture_output=True, text=True, check=True).stdout.split()
        samples.append(float(out[0]) * 1000)
        modules = int(out[1])
    return {"median_ms": round(statistics.median(samples), 1), "min_ms": round(min(samples), 1),
            "runs": runs, "modules_loaded": modules}


def import_times(env: dict, areas: list[str], runs: int = 7) -> dict:
    base = {k: v for k, v in env.items() if k != "WMS_MODULES"}
    result = {"source": "bench/coldstart.py", "floor": _time_import("floor_app", base, str(PROJECT_DIR / "bench"), runs),
              "whole_app": _time_import("app", base, str(PROJECT_DIR), runs), "areas": {}}
    for area in areas:
        result["areas"][area] = _time_import("app", {**base, "WMS_MODULES": area}, str(PROJECT_DIR), runs)
    return result


def infra_import_time(env: dict, output: Path, runs: int) -> dict | None:
    """The infra helper's measurement (bench/import_time.py), when present, in the shape of
    `import_times`: its `uncached` mode (Lambda ships no bytecode) and its `cached` mode."""
    script = PROJECT_DIR / "bench" / "import_time.py"
    if not script.exists():
        return None
    out = subprocess.run([sys.executable, str(script), "--repeat", str(runs), "--output", str(output)],
                         cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=3600)
    if out.returncode != 0 or not output.exists():
        return {"error": (out.stderr or out.stdout)[-2000:]}
    data = json.loads(output.read_text())
    result = {"source": "bench/import_time.py", "file": str(output), "modes": {}}
    for mode, figures in data.get("modes", {}).items():
        rows = {row["name"]: row for row in figures["rows"]}
        if "floor app" not in rows or "whole app" not in rows:
            continue

        def figure(row):
            return {"median_ms": row["median_ms"], "min_ms": row["min_ms"], "runs": len(row.get("samples_ms", [])),
                    "modules_loaded": row["modules"], "areas_loaded": row.get("areas_loaded"),
                    "x_floor_paired": row.get("x_floor_paired")}

        result["modes"][mode] = {
            "floor": figure(rows["floor app"]), "whole_app": figure(rows["whole app"]),
            "bare_chalice": figure(rows["bare chalice"]) if "bare chalice" in rows else None,
            "areas": {name: figure(row) for name, row in rows.items()
                      if name not in ("floor app", "whole app", "bare chalice")},
        }
    return result


def _vm_hwm() -> str:
    return "int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])"


_MEMORY = r"""
import json, sys
sys.path.insert(0, {root!r})
from bench.apigw import invoke, proxy_event
from app import app
requests = json.loads(sys.argv[1])
statuses = []
for _ in range(3):
    for method, resource_path, params, query, body, *own in requests:
        headers = own[0] if own else None  # a caller with its own headers (the portal) instead of the token
        statuses.append(invoke(app, proxy_event(method, resource_path, params, query=query, body=body,
                                                token=None if headers else {token!r},
                                                headers=headers))["statusCode"])
print(json.dumps({{"max_rss_kb": {hwm}, "statuses": statuses}}))
"""


def peak_memory(env: dict, token: str, requests: list, modules: str | None = None) -> dict:
    """Peak resident set (VmHWM: getrusage's ru_maxrss would carry the parent's peak across exec) of a
    fresh process that imports the app and serves `requests` three times."""
    env = dict(env)
    if modules:
        env["WMS_MODULES"] = modules
    else:
        env.pop("WMS_MODULES", None)
    out = subprocess.run([sys.executable, "-c", _MEMORY.format(root=str(PROJECT_DIR), token=token, hwm=_vm_hwm()),
                          json.dumps(requests)], cwd=PROJECT_DIR, env=env, capture_output=True, text=True,
                         timeout=300)
    if out.returncode != 0:
        return {"error": out.stderr[-2000:]}
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return {"peak_rss_mb": round(data["max_rss_kb"] / 1024, 1), "requests": len(data["statuses"]),
            "statuses": sorted(set(data["statuses"]))}


def floor_peak_memory(env: dict) -> dict:
    code = ("import sys; sys.path.insert(0, {p!r}); import floor_app; "
            "print({hwm})").format(p=str(PROJECT_DIR / "bench"), hwm=_vm_hwm())
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_DIR, env=env, capture_output=True, text=True,
                         check=True)
    return {"peak_rss_mb": round(int(out.stdout.strip()) / 1024, 1), "note": "import only"}




def import_breakdown(env: dict, module: str = "app", top: int = 10) -> list[dict]:
    """Where an import's time goes: `python -X importtime`, self time summed per top-level package."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], cwd=PROJECT_DIR,
                         env=env, capture_output=True, text=True)
    totals: dict[str, int] = {}
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        parts = line[len("import time:"):].split("|")
        if len(parts) != 3:
            continue
        self_us, name = int(parts[0].strip()), parts[2].strip()
        package = name.split(".")[0]
        totals[package] = totals.get(package, 0) + self_us
    ranked = sorted(totals.items(), key=lambda item: item[1], reverse=True)[:top]
    return [{"package": name, "self_ms": round(us / 1000, 1)} for name, us in ranked]
