"""An area's function imports only what it uses (issue 11 item 7): importing the app as one area's
function (WMS_MODULES=<area>) loads no AWS SDK, no SQLite dialect, no multipart parser, no notification delivery
models (loaded by the first notice), and builds no
request or response model (core.schemas Input and Read are not pydantic classes until first use,
core.schemas.model_of, and then build their validator on first validation). Each case is a fresh interpreter."""
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
                 "chalicelib.core.notify", "chalicelib.core.notify_models")
# the areas whose own modules use a module of NOT_AT_IMPORT (the notifications area reads notifications,
# preferences, subscriptions and deliveries); every other area loads core.notify (imported inside the function
# that notifies) and the delivery models on its first notice only
USES = {"notifications": ("chalicelib.core.notify", "chalicelib.core.notify_models")}

PROBE = """
import json, sys
import app
from chalicelib.core.schemas import Input, Read, is_built

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

models = [Input, *subclasses(Input), Read, *subclasses(Read)]
built = sorted(f"{m.__module__}.{m.__qualname__}" for m in models if is_built(m))
print(json.dumps({"modules": sorted(sys.modules), "built": built, "models": len(models)}))
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
    # a request builds the one input model its route validates, and no production request uses a read model:
    # none is a pydantic class yet after import (every function declares some: core's own, its area's envelopes)
    assert found["models"] > 4
    assert not found["built"], f"{area}: request or response models built at import: {found['built'][:10]}"


def test_a_read_model_is_built_on_first_use_and_answers_as_its_model():
    from pydantic import BaseModel

    from chalicelib.core.schemas import Flag01, Read, is_built, model_of, one

    class PartRead(Read):
        id: str
        done: Flag01

    class WholeRead(Read):
        part: PartRead
        parts: list[PartRead]
        maybe: "PartRead | None"

    envelope = one("whole", WholeRead)
    assert not any(is_built(m) for m in (PartRead, WholeRead, envelope))
    model = model_of(envelope)
    assert issubclass(model, BaseModel) and model.__name__ == "WholeResponse"
    assert all(is_built(m) for m in (PartRead, WholeRead, envelope))
    whole = model_of(WholeRead)
    assert whole.model_fields["part"].annotation is model_of(PartRead)
    assert whole.model_fields["parts"].annotation == list[model_of(PartRead)]
    assert set(WholeRead.model_fields) == {"part", "parts", "maybe"}  # asked of the class: its model answers
    record = {"part": {"id": "a", "done": 1}, "parts": [], "maybe": None}
    assert isinstance(WholeRead(**record), WholeRead)
    assert model.model_validate({"whole": record}).whole.part.id == "a"
