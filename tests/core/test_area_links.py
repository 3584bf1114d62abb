"""Cross-area calls have one idiom (issue 9 item 1): another area's `service` module, imported inside the
calling function and called by name. No registries, no strings, no importlib in the areas. This walks the
source of every area: a lazily imported module that does not exist (a typo, an area not built yet) fails
here, not silently at run time; and the links between areas go one way, except the pairs written down below."""
import ast
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import chalicelib.areas

AREAS_DIR = Path(chalicelib.areas.__file__).parent
AREAS = sorted(info.name for info in pkgutil.iter_modules([str(AREAS_DIR)]) if info.ispkg)

# Pairs of areas that call each other, each written down with why; every other link goes one way.
# (tasks <-> sprints and projects <-> timesheets are gone: a deleted sprint is cleared from its tasks by
# the database, and a project's profitability is served by the budgets area.)
BOTH_WAYS = {
    frozenset({"clients", "onboarding"}): "a client profile names an active onboarding template when set or changed "
                                          "(session 27); an onboarding starts from its profile's template",
    frozenset({"projects", "tasks"}): "a task may link a visible project; a project lists and counts its tasks",
    frozenset({"roadmaps", "tasks"}): "a task may name a visible roadmap item; a roadmap lists its items' tasks",
    frozenset({"budgets", "timesheets"}): "a time entry may name a budget line; a budget totals its time entries",
    frozenset({"budgets", "invoices"}): "an invoice is generated from a visible budget; a budget's lines and a "
                                        "project's profitability show what its invoices billed (issue 15)",
    frozenset({"sla", "tasks"}): "a task created in a project with an SLA policy gets its SLA (issue 12 item 3); "
                                 "a task's SLA is seen with the task",
    frozenset({"action_items", "relationships"}): "relationship actions are mirrored to the action centre and "
                                                  "completion on either side completes the other (issue 14 item 4)",
    frozenset({"action_items", "meetings"}): "meeting action items are mirrored to the action centre and, since "
                                             "session 22, completion on either side completes the other",
    frozenset({"deals", "onboarding"}): "onboarding reads its companies; a deal moved to won completes the client's "
                                        "deal_won milestones (session 22), as a proposal's acceptance does",
    frozenset({"clients", "deals"}): "a company that becomes a client gets its profile; a profile created by staff "
                                     "makes its company a client, and contracts show their company's name",
    frozenset({"clients", "proposals"}): "an accepted proposal makes its contract; a staff contract may name a "
                                         "proposal the caller can see (issue 16 item 6)",
    frozenset({"agents", "tasks"}): "a task of type agent_task gets its agent meta record, which the agents area "
                                    "owns (issue 13); an agent task is a task, seen with it",
    frozenset({"budgets", "portal"}): "the portal lists and approves the client's budgets; a budget moved to "
                                      "pending_approval notifies the client's portal users (issue 19 item 3)",
    frozenset({"portal", "tasks"}): "a portal request creates a task; a request's status change notifies its "
                                    "requester (issue 19 item 3)",
    frozenset({"notes", "portal"}): "the portal lists and writes client-visible notes; a staff reply visible to "
                                    "the client notifies the portal author (issue 19 item 3)",
    frozenset({"pages", "proposals"}): "a proposal's content is a page the proposals area makes and removes; that "
                                       "page is seen only by who sees the proposal (the proposals scope)",
    frozenset({"announcements", "portal"}): "the portal lists company announcements; a company announcement "
                                            "notifies the portal users (issue 19 item 3)",
    frozenset({"budgets", "projects"}): "a budget names a visible project; a project with budgets or time entries "
                                        "(counted by the budgets area, its money's) is not deleted (409)",
    frozenset({"budgets", "deals"}): "a budget names a visible deal; a deal that budgets name (counted by the budgets "
                                     "area) is not deleted (409); a deal moved to another client tells it of its "
                                     "budgets pending approval",
    frozenset({"deals", "relationships"}): "relationship data names contacts and companies; a contact's delete takes "
                                           "the action-centre items of its relationship actions with it",
    frozenset({"projects", "sprints"}): "a sprint belongs to a visible project; deleting a project deletes its sprints",
    frozenset({"projects", "roadmaps"}): "a roadmap may belong to a visible project; deleting a project deletes its "
                                         "roadmaps and their items",
    frozenset({"deals", "tasks"}): "a task may link a deal or company that exists; a deleted deal's or company's "
                                   "tasks are kept, no longer linked to it",
    frozenset({"calendar", "leave"}): "the team calendar shows approved leave; a leave booking's working days leave "
                                      "out the calendar's public holidays (session 18)",
    # session 23: a note names its record by type and id (no key the database could cascade), and every notes route
    # loads that record first: a deleted record's notes were unreachable and kept for good, so each delete of a record
    # notes attach to calls notes' `records_deleted`
    **{frozenset({"notes", area}): f"a note's record is checked through {area}; a deleted {area} record's notes go "
                                   "with it (notes' records_deleted, session 23)"
       for area in ("announcements", "budgets", "deals", "invoices", "performance", "projects", "proposals", "tasks")},
}


def _links():
    """(calling area, file, line, imported module, inside a function?) for every import of another area."""
    found = []
    for area in AREAS:
        for path in sorted((AREAS_DIR / area).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
            for node in ast.walk(tree):
                modules = []
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    if node.module.startswith("chalicelib.areas"):
                        modules = [f"{node.module}.{alias.name}" if node.module.count(".") == 2 else node.module
                                   for alias in node.names]
                elif isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names if alias.name.startswith("chalicelib.areas")]
                for module in modules:
                    parts = module.split(".")
                    if len(parts) < 3 or parts[2] == area:
                        continue
                    parent, in_function = parents.get(node), False
                    while parent is not None:
                        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            in_function = True
                            break
                        parent = parents.get(parent)
                    found.append((area, path.relative_to(AREAS_DIR), node.lineno, module, in_function))
    return found


LINKS = _links()


def module_exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its package does not exist
        return False


def test_every_imported_module_exists():
    missing = [(str(path), line, module) for _area, path, line, module, _ in LINKS if not module_exists(module)]
    assert missing == []


def test_another_area_is_reached_through_its_service_inside_the_calling_function():
    wrong = [(str(path), line, module) for area, path, line, module, in_function in LINKS
             if area != "system" and (not in_function or module.split(".")[3:] != ["service"])]
    assert wrong == []


def test_no_registries_or_importlib_in_the_areas():
    offenders = []
    for path in sorted(AREAS_DIR.rglob("*.py")):
        if path == AREAS_DIR / "__init__.py":
            continue
        text = path.read_text()
        if "importlib" in text or "sys.modules" in text or "chalicelib.core.hooks" in text:
            offenders.append(str(path.relative_to(AREAS_DIR)))
    assert offenders == []
    assert not module_exists("chalicelib.core.hooks")


def area_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {area: set() for area in AREAS}
    for area, _path, _line, module, _ in LINKS:
        if area != "system":
            graph[area].add(module.split(".")[2])
    return graph


def test_links_go_one_way_except_the_written_down_pairs():
    graph = area_graph()
    both = {frozenset({a, b}) for a, targets in graph.items() for b in targets if a in graph.get(b, set())}
    assert both == set(BOTH_WAYS)
    for pair in ({"tasks", "sprints"}, {"projects", "timesheets"}):
        assert frozenset(pair) not in both


@pytest.mark.parametrize("area", [a for a in AREAS if importlib.util.find_spec(f"chalicelib.areas.{a}.service")])
def test_every_area_service_imports(area):
    for info in pkgutil.iter_modules([str(AREAS_DIR / area)]):
        if info.name == "service" or info.name.startswith("service_") or info.name == "queries":
            importlib.import_module(f"chalicelib.areas.{area}.{info.name}")


def test_the_walk_catches_a_misspelt_lazy_import():
    assert not module_exists("chalicelib.areas.slas.service")      # an area that does not exist
    assert not module_exists("chalicelib.areas.tasks.servcie")     # a typo in an existing area
    assert module_exists("chalicelib.areas.tasks.service")


def _imports_of_service(path: Path) -> list[int]:
    """Lines where this module imports its own area's service.py (`from .service import ...`,
    `from . import service`), at module level or inside a function."""
    tree = ast.parse(path.read_text(), str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module == "service" or (node.module is None and any(a.name == "service" for a in node.names)):
                lines.append(node.lineno)
    return lines


def test_service_modules_and_queries_never_import_the_area_service():
    """docs/area-contract.md: shared lookups of an area live in its leaf module (queries.py) that service.py
    and service_*.py import, never the reverse, so that no area has an import cycle inside it."""
    found = []
    for path in sorted(AREAS_DIR.glob("*/*.py")):
        if path.name.startswith("service_") or path.name == "queries.py":
            found += [f"{path.parent.name}/{path.name}:{line}" for line in _imports_of_service(path)]
    assert found == []


def test_the_leaf_rule_catches_an_import_of_the_service(tmp_path):
    module = tmp_path / "service_x.py"
    module.write_text("def f():\n    from .service import thing\n    from . import service\n")
    assert _imports_of_service(module) == [2, 3]
