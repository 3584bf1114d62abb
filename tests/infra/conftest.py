"""Fixtures of the deployment tests: the template is packaged once per session and reused.

These tests need no database: the suite's autouse `db_connection` fixture is replaced here.
"""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def _load_package_module():
    """infra/package.py as the module `wms_infra_package` (infra/ is not a Python package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("wms_infra_package", ROOT / "infra" / "package.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


infra_package = _load_package_module()


@pytest.fixture(autouse=True)
def db_connection():
    yield None


def subprocess_env(**values: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key not in ("WMS_MODULES", "DATABASE_URL")}
    env.setdefault("AWS_DEFAULT_REGION", "ap-southeast-2")
    env.update(values)
    return env


@pytest.fixture(scope="session")
def packaged(tmp_path_factory) -> Path:
    """`infra/package.py --stage prod` into a temporary folder; returns the folder."""
    output = tmp_path_factory.mktemp("package") / "prod"
    result = subprocess.run([PY, str(ROOT / "infra" / "package.py"), "--stage", "prod", "--output", str(output)],
                            cwd=ROOT, env=subprocess_env(WMS_DATA_DIR=str(tmp_path_factory.mktemp("data"))),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"package failed:\n{result.stdout}\n{result.stderr}"
    return output


@pytest.fixture(scope="session")
def template(packaged) -> dict:
    return json.loads((packaged / "sam.json").read_text())


@pytest.fixture(scope="session")
def translated(template) -> dict:
    """The template after the SAM transform (as `aws cloudformation package` would upload the code)."""
    from samtranslator.translator.transform import transform

    class NoManagedPolicies:
        def load(self):
            return {}

    document = copy.deepcopy(template)
    for resource in document["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            resource["Properties"]["CodeUri"] = "s3://deployment-bucket/wms/deployment.zip"
    previous = os.environ.get("AWS_DEFAULT_REGION")
    os.environ["AWS_DEFAULT_REGION"] = previous or "ap-southeast-2"
    try:
        return transform(document, {}, NoManagedPolicies())
    finally:
        if previous is None:
            os.environ.pop("AWS_DEFAULT_REGION", None)


PROBE = r"""
import json, os, sys
sys.path.insert(0, os.getcwd())
target = sys.argv[1]
if target == "app":
    import app as module
    chalice_app = module.app
    routes = sorted([path, method] for path, methods in chalice_app.routes.items() for method in methods)
    handlers = sorted(source.handler_string for source in chalice_app.event_sources)
else:
    import importlib
    module_name, _, attribute = target.rpartition(".")
    handler = getattr(importlib.import_module(module_name), attribute)
    assert callable(handler), target
    routes, handlers = [], []
areas = sorted({name.split(".")[2] for name in sys.modules if name.startswith("chalicelib.areas.") and name.count(".") >= 2})
print(json.dumps({"routes": routes, "handlers": handlers, "areas": areas}))
"""


def probe(target: str, modules: str | None, data_dir: str) -> dict:
    """Import `app` (or a handler `module.attribute`) in a fresh interpreter with WMS_MODULES=modules."""
    env = subprocess_env(WMS_DATA_DIR=data_dir)
    if modules is not None:
        env["WMS_MODULES"] = modules
    result = subprocess.run([PY, "-c", PROBE, target], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"importing {target} with WMS_MODULES={modules} failed:\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


FORK_PROBE = r"""
import json, os, pkgutil, sys, importlib
sys.path.insert(0, os.getcwd())
# Third-party packages and core are shared by every area: import them once, then fork one child
# per area so that each child imports app.py (and its areas) into a clean chalicelib.areas.*.
import chalice, sqlalchemy, pydantic, chalicelib.core, chalicelib.areas
for info in pkgutil.iter_modules(chalicelib.core.__path__):
    importlib.import_module("chalicelib.core." + info.name)
assert not [m for m in sys.modules if m.startswith("chalicelib.areas.")], "core imports an area"
results = {}
for target in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 0
        try:
            if target is None:
                os.environ.pop("WMS_MODULES", None)
            else:
                os.environ["WMS_MODULES"] = target
            import app as module
            chalice_app = module.app
            answer = {
                "routes": sorted([p, m] for p, ms in chalice_app.routes.items() for m in ms),
                "handlers": sorted(s.handler_string for s in chalice_app.event_sources),
                "areas": sorted({n.split(".")[2] for n in sys.modules if n.startswith("chalicelib.areas.")}),
            }
        except BaseException as exc:
            import traceback
            answer = {"error": traceback.format_exc()}
            code = 1
        with os.fdopen(write, "w") as out:
            out.write(json.dumps(answer))
        os._exit(code)
    os.close(write)
    with os.fdopen(read) as incoming:
        results[json.dumps(target)] = json.loads(incoming.read() or "{}")
    os.waitpid(pid, 0)
print(json.dumps(results))
"""


@pytest.fixture(scope="session")
def isolated(tmp_path_factory) -> dict:
    """{area: app.py imported with WMS_MODULES=<area>}, and None: the whole app (WMS_MODULES unset).

    One interpreter imports the shared packages, then forks a fresh child per area.
    """
    from chalicelib.areas import AREAS

    targets = [None, *AREAS]
    env = subprocess_env(WMS_DATA_DIR=str(tmp_path_factory.mktemp("probe-data")))
    result = subprocess.run([PY, "-c", FORK_PROBE, json.dumps(targets)], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    found = {target: answers[json.dumps(target)] for target in targets}
    failed = {target: answer["error"] for target, answer in found.items() if "error" in answer}
    assert not failed, f"importing app.py failed: {failed}"
    return found
