"""An area's function imports only what it uses (issue 11 item 7): importing the app as one area's
function (WMS_MODULES=<area>) loads no AWS SDK, no SQLite dialect, no multipart parser, no notification delivery
models (loaded by the first notice), and builds no
request or response model (core.schemas Input and Read defer their build to first use). Each case is a
fresh interpreter."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chalicelib.areas import AREAS

PROJECT_DIR = Path(__file__).resolve().parents[2]
NOT_AT_IMPORT = ("boto3", "botocore.client", "sqlalchemy.dialects.sqlite", "multipart", "python_multipart",
                 "chalicelib.core.notify_models")
# the areas whose own modules use a module of NOT_AT_IMPORT (the notifications area reads preferences,
# subscriptions and deliveries); every other area loads the delivery models on its first notice only
USES = {"notifications": ("chalicelib.core.notify_models",)}

PROBE = """
import json, sys
import app
from chalicelib.core.schemas import Input, Read

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

built = sorted({f"{m.__module__}.{m.__qualname__}" for base in (Input, Read) for m in subclasses(base)
                if m.__pydantic_complete__ and m.__module__.startswith("chalicelib.areas.")})
print(json.dumps({"modules": sorted(sys.modules), "built": built}))
"""


@pytest.mark.parametrize("area", AREAS)
def test_an_area_function_imports_only_what_it_uses(area):
    env = {key: value for key, value in os.environ.items() if key != "WMS_MODULES"}
    env.update(WMS_MODULES=area, PYTHONPATH=str(PROJECT_DIR))
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=PROJECT_DIR, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    loaded = [name for name in NOT_AT_IMPORT if name in found["modules"] and name not in USES.get(area, ())]
    assert not loaded, f"{area}: imported at cold start: {loaded}"
    assert not found["built"], f"{area}: models built at import (defer_build expected): {found['built'][:10]}"
