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
sys.path.insert(0, str(ROOT / "infra"))


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


@pytest.fixture(scope="session")
def isolated(tmp_path_factory) -> dict:
    """{area: probe of app.py with WMS_MODULES=<area>}, plus None: the whole app; two at a time."""
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.areas import AREAS

    data_dir = str(tmp_path_factory.mktemp("probe-data"))
    targets = [None, *AREAS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda area: probe("app", area, data_dir), targets))
    return dict(zip(targets, results))
