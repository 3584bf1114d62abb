"""Cross-area hooks: handlers of areas that do not exist yet are skipped; present ones run."""
import sys
import types

import pytest

from chalicelib.core import hooks


def test_a_missing_area_is_skipped_and_remembered(monkeypatch):
    name = "chalicelib.areas.not_built_yet.service"
    monkeypatch.setattr(hooks, "_absent", set())
    assert hooks.optional_module(name) is None
    assert name in hooks._absent
    monkeypatch.setitem(hooks.HANDLERS, "demo_event", [f"{name}:handle"])
    assert hooks.emit("demo_event", ctx=None, x=1) == []


def test_a_present_handler_runs_with_the_payload(monkeypatch):
    module = types.ModuleType("chalicelib.areas.demo_area.service")
    module.handle = lambda ctx, **payload: ("handled", ctx, payload)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(hooks, "_absent", {module.__name__})  # even after an earlier miss
    monkeypatch.setitem(hooks.HANDLERS, "demo_event", [f"{module.__name__}:handle"])
    assert hooks.emit("demo_event", "ctx", project_id="p1") == [("handled", "ctx", {"project_id": "p1"})]


def test_a_broken_area_is_not_mistaken_for_a_missing_one(monkeypatch, tmp_path):
    package = tmp_path / "broken_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "service.py").write_text("import a_dependency_that_is_not_installed\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError):
        hooks.optional_module("broken_pkg.service")
