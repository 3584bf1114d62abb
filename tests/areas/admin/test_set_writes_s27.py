"""Session 27: the matrix save and a user's overrides write their cells as a set (one DELETE of the cells that
change, one multi-row INSERT of their new levels), not one ORM row at a time (pg8000 runs an executemany row by
row: docs/decisions.md, "Bulk writes"). The statements of a save are the same at 2 cells and at every cell, counted
as SQLAlchemy sends them (`count_queries`) and as the driver runs them (`driver_statements`). The tools whose
change moves work (`service_permissions.permissions_moved`: tasks, performance, proposals, leave) are sent at the
level they hold, so the same hooks run (none) at both sizes."""
from sqlalchemy import select

from chalicelib.core.models import ACCESS_LEVELS, HistoryEntry, UserPermission
from chalicelib.core.permissions import TOOLS
from tests.factories import make_user

HOOKED = {"tasks", "performance", "proposals", "leave"}
KEPT = {("executive", "admin")}  # the executive level keeps admin:manage (and update:leave, test_leave_guard_s27.py)


def _other(level: str) -> str:
    return "view" if level != "view" else "none"


def _matrix(api, user) -> dict:
    return api.get("/api/admin/permissions", as_=user).json["matrix"]


def _matrix_changes(current: dict, cells) -> dict:
    changes: dict = {}
    for access_level, tool in cells:
        level = current[access_level][tool]
        changes.setdefault(access_level, {})[tool] = (
            level if tool in HOOKED or (access_level, tool) in KEPT else _other(level))
    return changes


def _every_cell():
    return [(access_level, tool) for access_level in ACCESS_LEVELS for tool in TOOLS]


def _save_matrix(api, user, changes):
    saved = api.put("/api/admin/permissions", as_=user, json={"matrix": changes})
    assert saved.status == 200, saved
    return saved.json["matrix"]


def _counted_matrix_saves(api, db, user, count):
    """(statements at 2 cells, statements at every cell), each cell stored before (an update of a stored row),
    with the answers checked."""
    _save_matrix(api, user, {level: {tool: level_of for tool, level_of in row.items()}
                             for level, row in _matrix(api, user).items()})  # every cell stored
    counts = []
    for cells in ([("employee", "budgets"), ("lead", "sla")], _every_cell()):
        current = _matrix(api, user)
        changes = _matrix_changes(current, cells)
        n, answer = count(lambda changes=changes: _save_matrix(api, user, changes))
        expected = {level: {**row, **changes.get(level, {})} for level, row in current.items()}
        assert answer == expected
        assert _matrix(api, user) == expected
        counts.append(n)
    return counts


def test_matrix_save_costs_the_same_at_two_cells_and_at_all(api, db, exec_user, count_queries):
    def count(call):
        with count_queries() as counter:
            answer = call()
        return counter.count, answer

    two, every = _counted_matrix_saves(api, db, exec_user, count)
    assert two == every, (two, every)


def test_matrix_save_runs_the_same_driver_statements_at_two_cells_and_at_all(api, db, exec_user, driver_statements):
    def count(call):
        statements, answer = driver_statements(call)
        return len(statements), answer

    two, every = _counted_matrix_saves(api, db, exec_user, count)
    assert two == every, (two, every)


def test_matrix_save_of_new_and_stored_cells_records_history_per_level(api, db, exec_user):
    first = _save_matrix(api, exec_user, {"employee": {"budgets": "none", "sla": "none"}, "lead": {"sla": "none"}})
    assert first["employee"]["budgets"] == "none" and first["employee"]["sla"] == "none"
    second = _save_matrix(api, exec_user, {"employee": {"budgets": "manage", "sla": "none"}, "lead": {"sla": "none"}})
    assert second["employee"]["budgets"] == "manage"
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "access_level")
                         .order_by(HistoryEntry.created_at)).all()
    assert [(e.entity_id, e.changes) for e in entries if e.entity_id == "employee"] == [
        ("employee", {"budgets": {"from": "view", "to": "none"}, "sla": {"from": "view", "to": "none"}}),
        ("employee", {"budgets": {"from": "none", "to": "manage"}})]
    assert [e.entity_id for e in entries].count("lead") == 1  # the second save sent lead's sla unchanged


# ---------------------------------------------------------------- a user's overrides

def _save_overrides(api, admin, user, levels):
    saved = api.put(f"/api/admin/users/{user.id}/permissions", as_=admin, json={"permissions": levels})
    assert saved.status == 200, saved
    return saved.json


def _counted_override_saves(api, db, admin, count):
    user = make_user(db)
    start = api.get(f"/api/admin/users/{user.id}", as_=admin).json["permissions"]
    _save_overrides(api, admin, user, start)  # every tool overridden at its level: each later save updates rows
    counts = []
    for tools in (["budgets", "sla"], list(TOOLS)):
        current = api.get(f"/api/admin/users/{user.id}", as_=admin).json
        levels = {tool: current["permissions"][tool] if tool in HOOKED else _other(current["permissions"][tool])
                  for tool in tools}
        n, answer = count(lambda levels=levels: _save_overrides(api, admin, user, levels))
        assert answer["overrides"] == {**current["overrides"], **levels}
        assert answer["permissions"] == {**current["permissions"], **levels}
        counts.append(n)
    # removing overrides (null): 2 and then every other one
    for tools in (["budgets", "sla"], [tool for tool in TOOLS if tool not in ("budgets", "sla")]):
        current = api.get(f"/api/admin/users/{user.id}", as_=admin).json
        n, answer = count(lambda tools=tools: _save_overrides(api, admin, user, {tool: None for tool in tools}))
        assert set(answer["overrides"]) == set(current["overrides"]) - set(tools)
        counts.append(n)
    db.expire_all()
    assert db.scalars(select(UserPermission).where(UserPermission.user_id == user.id)).all() == []
    return counts


def test_override_save_costs_the_same_at_two_tools_and_at_all(api, db, exec_user, count_queries):
    def count(call):
        with count_queries() as counter:
            answer = call()
        return counter.count, answer

    set_two, set_every, removed_two, removed_rest = _counted_override_saves(api, db, exec_user, count)
    assert (set_two, removed_two) == (set_every, removed_rest)


def test_override_save_runs_the_same_driver_statements_at_two_tools_and_at_all(api, db, exec_user,
                                                                                driver_statements):
    def count(call):
        statements, answer = driver_statements(call)
        return len(statements), answer

    set_two, set_every, removed_two, removed_rest = _counted_override_saves(api, db, exec_user, count)
    assert (set_two, removed_two) == (set_every, removed_rest)


def test_override_history_names_each_change(api, db, exec_user):
    user = make_user(db)
    _save_overrides(api, exec_user, user, {"budgets": "none", "sla": "manage"})
    _save_overrides(api, exec_user, user, {"budgets": None, "sla": "manage", "calendar": "none"})
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "user",
                                                    HistoryEntry.entity_id == user.id,
                                                    HistoryEntry.action == "permissions_changed")
                         .order_by(HistoryEntry.created_at)).all()
    assert [e.changes for e in entries] == [
        {"budgets": {"from": None, "to": "none"}, "sla": {"from": None, "to": "manage"}},
        {"budgets": {"from": "none", "to": None}, "calendar": {"from": None, "to": "none"}}]
