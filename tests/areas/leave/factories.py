"""Factories for the leave area: plain functions that add, flush and return."""
from __future__ import annotations

from datetime import date

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES
from tests.factories import add_row, make_squad, make_user, override_permissions, save_matrix

ANNUAL_LEAVE = {"leave_type_id": LEAVE_TYPES[0]["id"], "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
                "end_date": "2026-12-03"}  # the ledger's first leave type, 1 to 3 December 2026


def make_leave(db, user, **overrides) -> LeaveRequest:
    values = {"user_id": user.id, "leave_type_id": "annual", "leave_type_name": "Annual Leave",
              "start_date": date(2026, 12, 1), "end_date": date(2026, 12, 3), "status": "pending_manager"}
    return add_row(db, LeaveRequest, values, overrides)


def map_user(db, user, ledger_id: str = "EMP-0001", planner_id: str | None = None) -> None:
    """Map the user to a ledger employee and a planner person (default: the planner sandbox's person for their
    e-mail address)."""
    from chalicelib.areas.connections.models import UserMapping
    from chalicelib.core.ids import utcnow
    from chalicelib.providers.planner.sandbox import person_id

    db.merge(UserMapping(user_id=user.id, ledger_id=ledger_id, planner_id=planner_id or person_id(user.email),
                         updated_at=utcnow()))
    db.flush()


def mapped_team(db, **employee_fields) -> dict:
    """`{employee, exec}`: an employee of a squad with a chat channel, mapped to the ledger and the planner, and an
    executive (who approves)."""
    squad = make_squad(db, chat_channel_id="C_TEAM")
    employee = make_user(db, squad_id=squad.id, **employee_fields)
    map_user(db, employee)
    return {"employee": employee, "exec": make_user(db, access_level="executive")}


def squad_team(db, access_level: str = "manager"):
    """Mia Manager (at `access_level`), the squad she manages and Eve Member in it: (manager, squad, eve)."""
    manager = make_user(db, access_level=access_level, name="Mia Manager")
    squad = make_squad(db, manager_id=manager.id)
    eve = make_user(db, squad_id=squad.id, name="Eve Member")
    return manager, squad, eve


def approve_leave(api, people, body=ANNUAL_LEAVE):
    """`people["employee"]` (a `mapped_team`) files `body` and `people["exec"]` approves it twice (both steps),
    asserting nothing. Answers (the request filed, its path, the second approve's answer)."""
    request = api.post("/api/leave/requests", as_=people["employee"], json=body).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    return request, path, api.post(f"{path}/approve", as_=people["exec"])


def approved_leave(api, people, body) -> tuple[str, dict]:
    """`approve_leave`, asserting the filing (201) and the approval (200, approved). Answers (its path, the request
    as read after the approval)."""
    made = api.post("/api/leave/requests", as_=people["employee"], json=body)
    assert made.status == 201, made
    path = f"/api/leave/requests/{made.json['request']['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    answer = api.post(f"{path}/approve", as_=people["exec"])
    assert answer.status == 200 and answer.json["request"]["status"] == "approved", answer
    return path, api.get(path, as_=people["exec"]).json["request"]


# ---------------------------------------------------------------- through the API (session 26's permission tests)

SICK_LEAVE = {"leave_type_id": "sick", "leave_type_name": "Sick Leave", "start_date": "2026-12-01",
              "end_date": "2026-12-03", "total_hours": 22.8}


def submit_leave(api, user, **changes) -> str:
    """A request of `SICK_LEAVE` (with `changes`) filed by `user`; its id."""
    made = api.post("/api/leave/requests", as_=user, json={**SICK_LEAVE, **changes})
    assert made.status == 201, made
    return made.json["request"]["id"]


def set_leave_override(api, admin, user, level) -> None:
    """`user`'s own leave permission set to `level` (None: removed) by `admin`."""
    override_permissions(api, admin, user, leave=level)


def set_leave_cell(api, admin, access_level, level) -> None:
    """The access level's leave cell of the matrix set to `level` by `admin`."""
    save_matrix(api, admin, **{access_level: {"leave": level}})
