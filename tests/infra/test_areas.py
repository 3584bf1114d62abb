"""One function per area: each area loads alone, and every route reaches the function that serves it.

The area of a route is read from the app itself, imported in a fresh interpreter with
WMS_MODULES=<area> (not from infra/package.py's own probe), so that a wrong mapping (which would
answer 405 in production) fails here.
"""
from __future__ import annotations

import pytest

from chalicelib.areas import AREAS

from .conftest import probe
from .test_template import functions, integration_function, modules_of


@pytest.mark.parametrize("area", AREAS)
def test_area_loads_alone(isolated, area):
    loaded = isolated[area]["areas"]
    assert area in loaded  # the probe sees the area's own modules, so it would see another's
    others = sorted(set(loaded) - {area})
    assert not others, f"WMS_MODULES={area} imports other areas at import time: {others}"
    whole = {tuple(route) for route in isolated[None]["routes"]}
    mine = {tuple(route) for route in isolated[area]["routes"]}
    assert mine <= whole


def test_every_route_belongs_to_exactly_one_area(isolated):
    for path, method in isolated[None]["routes"]:
        owners = [area for area in AREAS if [path, method] in isolated[area]["routes"]]
        assert len(owners) == 1, f"{method} {path} is served by {owners}"


def test_every_route_is_integrated_with_its_areas_function(template, isolated):
    resources = template["Resources"]
    paths = template["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["paths"]
    for path, method in isolated[None]["routes"]:
        operation = paths[path]["x-amazon-apigateway-any-method" if method == "ANY" else method.lower()]
        area = next(a for a in AREAS if [path, method] in isolated[a]["routes"])
        function = integration_function(operation)
        assert area in modules_of(resources[function]), f"{method} {path} ({area}) goes to {function}"
    integrated = {(path, m.upper()) for path, ops in paths.items() for m, op in ops.items()
                  if op.get("x-amazon-apigateway-integration", {}).get("type") == "aws_proxy"}
    assert integrated == {tuple(route) for route in isolated[None]["routes"]}


def test_event_handlers_load_without_other_areas(template, tmp_path):
    handlers = {name: r["Properties"] for name, r in functions(template).items()
                if r["Properties"]["Handler"] != "app.app"}
    for name, props in handlers.items():
        modules = props["Environment"]["Variables"].get("WMS_MODULES")
        loaded = probe(props["Handler"], modules, str(tmp_path))["areas"]
        assert set(loaded) <= set(modules.split(",") if modules else []), f"{name} ({props['Handler']}) loads {loaded}"
