"""Session 29, code no test ran (coverage audit): the OpenAPI document written by the CLI in a function that serves
some areas only (WMS_MODULES): it documents every area all the same, its own routes from the app and the others'
from a scratch app; WMS_MODULES naming an unknown area refuses to start. Run in a fresh interpreter, as a deployed
function starts (the test process has imported every area)."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _cli_openapi(tmp_path, modules: str):
    env = {key: value for key, value in os.environ.items() if key != "WMS_MODULES"}
    env["WMS_MODULES"] = modules
    output = tmp_path / "openapi.json"
    result = subprocess.run([sys.executable, "-m", "chalicelib.cli", "openapi", "--output", str(output)], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    return result, output


def test_a_function_serving_some_areas_documents_every_area(api, tmp_path):
    served = api.get("/api/openapi.json")
    assert served.status == 200, served
    result, output = _cli_openapi(tmp_path, " system , tasks ,")  # spaces and an empty name are ignored
    assert result.returncode == 0, result.stderr
    document = json.loads(output.read_text())
    assert document["paths"] == served.json["paths"]
    assert "/api/tasks/{task_id}" in document["paths"] and "/api/proposals/{proposal_id}" in document["paths"]


def test_wms_modules_naming_an_unknown_area_refuses_to_start(tmp_path):
    result, output = _cli_openapi(tmp_path, "tasks,nope,alsono")
    assert result.returncode != 0 and not output.exists()
    assert "WMS_MODULES names unknown areas: nope, alsono" in result.stderr
