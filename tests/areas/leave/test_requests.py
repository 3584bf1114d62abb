"""Leave requests at /api/leave: the initial status by submitter level, each step of the approval chain,
reject, cancel, tabs, the pending count, dates and overlaps, history and notifications."""
import pytest
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.leave.factories import make_leave
from tests.factories import make_squad, make_user

BODY = {"leave_type_id": "annual", "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
        "end_date": "2026-12-03", "total_hours": 22.8, "notes": "Family trip"}


@pytest.fixture
def team(db):
    """A squad with its manager, two members, a head and two executives."""
    manager = make_user(db, access_level="manager", name="Mia Manager")
    squad = make_squad(db, manager_id=manager.id, chat_channel_id="C_TEAM")
    manager.squad_id = squad.id
    people = {"manager": manager, "squad": squad,
              "employee": make_user(db, squad_id=squad.id, name="Eve Employee"),
              "lead": make_user(db, squad_id=squad.id, access_level="lead"),
              "head": make_user(db, access_level="head"),
              "exec": make_user(db, access_level="executive", name="Ed Exec"),
              "exec2": make_user(db, access_level="executive"),
              "other_manager": make_user(db, access_level="manager")}
    db.flush()
    return people


def _submit(api, user, **changes):
    return api.post("/api/leave/requests", as_=user, json={**BODY, **changes})


def _notified(db, user, type):
    return db.scalars(select(Notification.resource_id).where(Notification.user_id == user.id,
                                                             Notification.type == type)).all()


@pytest.mark.parametrize("level, status", [("employee", "pending_manager"), ("lead", "pending_manager"),
                                           ("manager", "pending_exec"), ("head", "pending_exec"),
                                           ("exec", "approved")])
def test_initial_status_by_submitter_level(api, db, team, level, status):
    answer = _submit(api, team[level])
    assert answer.status == 201, answer
    request = answer.json["request"]
    assert request["status"] == status and request["user_name"] == team[level].name
    assert request["total_hours"] == 22.8 and request["notes"] == "Family trip"
    history = api.get(f"/api/leave/requests/{request['id']}", as_=team[level]).json["history"]
    assert [h["action"] for h in history] == (["submitted", "approved"] if level == "exec" else ["submitted"])
    assert history[0]["actor_name"] == team[level].name and history[0]["comment"] == "Family trip"


@pytest.mark.smoke
def test_the_full_chain_for_an_employee(api, db, team):
    employee, manager, head, executive = team["employee"], team["manager"], team["head"], team["exec"]
    request = _submit(api, employee).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    assert _notified(db, manager, "leave_requested") == [request["id"]]
    assert _notified(db, executive, "leave_requested") == []
    # the first step: only the squad manager or an executive
    assert api.post(f"{path}/approve", as_=employee).status == 403  # own request
    assert api.post(f"{path}/approve", as_=head).status == 403  # sees all, decides nothing at this step
    assert api.post(f"{path}/approve", as_=team["lead"]).status == 404  # a squad peer does not see it
    assert api.post(f"{path}/approve", as_=team["other_manager"]).status == 404
    step = api.post(f"{path}/approve", as_=manager)
    assert step.status == 200 and step.json["request"]["status"] == "pending_exec"
    assert step.json["request"]["manager_approved_by"] == manager.id and step.json["request"]["manager_approved_at"]
    assert _notified(db, executive, "leave_requested") == [request["id"]]
    assert _notified(db, team["exec2"], "leave_requested") == [request["id"]]
    # the second step: executives only
    assert api.post(f"{path}/approve", as_=manager).status == 403
    assert api.post(f"{path}/approve", as_=head).status == 403
    done = api.post(f"{path}/approve", as_=executive)
    assert done.status == 200 and done.json["request"]["status"] == "approved"
    assert done.json["request"]["exec_approved_by"] == executive.id
    assert _notified(db, employee, "leave_approved") == [request["id"]]
    assert api.post(f"{path}/approve", as_=executive).status == 409
    assert api.post(f"{path}/reject", as_=executive, json={"reason": "late"}).status == 409
    detail = api.get(path, as_=employee).json
    assert [(h["action"], h["actor_id"]) for h in detail["history"]] == [
        ("submitted", employee.id), ("manager_approved", manager.id), ("approved", executive.id)]


def test_an_executive_approves_the_first_step_too(api, db, team):
    request = _submit(api, team["lead"]).json["request"]
    answer = api.post(f"/api/leave/requests/{request['id']}/approve", as_=team["exec"])
    assert answer.json["request"]["status"] == "pending_exec"


def test_a_requester_without_a_squad_manager_goes_to_the_executives(api, db, team):
    loner = make_user(db)
    request = _submit(api, loner).json["request"]
    assert _notified(db, team["exec"], "leave_requested") == [request["id"]]
    pending = api.get("/api/leave/requests?tab=pending", as_=team["exec"]).json["requests"]
    assert request["id"] in [r["id"] for r in pending]


def test_manager_and_head_requests_need_an_executive(api, db, team):
    request = _submit(api, team["manager"]).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    assert _notified(db, team["exec"], "leave_requested") == [request["id"]]
    assert api.post(f"{path}/approve", as_=team["head"]).status == 403
    assert api.post(f"{path}/approve", as_=team["exec"]).json["request"]["status"] == "approved"


def test_reject_needs_a_reason_and_the_step_approver(api, db, team):
    request = _submit(api, team["employee"]).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    assert api.post(f"{path}/reject", as_=team["manager"], json={}).status == 400
    assert api.post(f"{path}/reject", as_=team["manager"], json={"reason": "   "}).status == 400
    assert api.post(f"{path}/reject", as_=team["head"], json={"reason": "no"}).status == 403
    rejected = api.post(f"{path}/reject", as_=team["manager"], json={"reason": "Release week"})
    assert rejected.status == 200
    body = rejected.json["request"]
    assert body["status"] == "rejected" and body["rejection_reason"] == "Release week"
    assert body["rejected_by"] == team["manager"].id
    assert _notified(db, team["employee"], "leave_rejected") == [request["id"]]
    history = api.get(path, as_=team["employee"]).json["history"]
    assert history[-1]["action"] == "rejected" and history[-1]["comment"] == "Release week"
    assert api.post(f"{path}/cancel", as_=team["employee"]).status == 409
    # a rejected request no longer blocks the dates
    assert _submit(api, team["employee"]).status == 201


def test_cancel_by_owner_or_executive(api, db, team):
    mine = _submit(api, team["employee"]).json["request"]
    assert api.post(f"/api/leave/requests/{mine['id']}/cancel", as_=team["manager"]).status == 403
    assert api.post(f"/api/leave/requests/{mine['id']}/cancel", as_=team["lead"]).status == 404
    cancelled = api.post(f"/api/leave/requests/{mine['id']}/cancel", as_=team["employee"])
    assert cancelled.status == 200 and cancelled.json["request"]["status"] == "cancelled"
    assert cancelled.json["request"]["cancelled_by"] == team["employee"].id
    assert api.post(f"/api/leave/requests/{mine['id']}/cancel", as_=team["employee"]).status == 409
    theirs = _submit(api, team["lead"]).json["request"]
    by_exec = api.post(f"/api/leave/requests/{theirs['id']}/cancel", as_=team["exec"])
    assert by_exec.json["request"]["status"] == "cancelled"
    assert _notified(db, team["lead"], "leave_cancelled") == [theirs["id"]]


def test_dates_and_overlaps(api, db, team):
    employee = team["employee"]
    backwards = _submit(api, employee, start_date="2026-12-05", end_date="2026-12-04")
    assert backwards.status == 400 and backwards.json["details"][0]["field"] == "end_date"
    for body in ({"start_date": "2026-02-30"}, {"end_date": None}, {"start_date": "tomorrow"},
                 {"total_hours": -1}, {"total_hours": "x"}, {"leave_type_id": ""}, {"leave_type_name": None}):
        assert _submit(api, employee, **body).status == 400, body
    assert _submit(api, employee, start_date="2026-12-05", end_date="2026-12-05").status == 201  # one day
    assert _submit(api, employee).status == 201
    for start, end in (("2026-12-03", "2026-12-04"), ("2026-11-28", "2026-12-01"), ("2026-12-02", "2026-12-02"),
                       ("2026-11-01", "2026-12-31"), ("2026-12-05", "2026-12-06")):
        clash = _submit(api, employee, start_date=start, end_date=end)
        assert clash.status == 409 and "error" in clash.json, (start, end)
    assert _submit(api, employee, start_date="2026-12-04", end_date="2026-12-04").status == 201  # the gap
    assert _submit(api, team["lead"]).status == 201  # another person's dates


def test_a_request_spans_at_most_366_days(api, db, team):
    """The integrations walk a request's days after commit: year 1 to 9999 is refused, not run."""
    for start, end in (("0001-01-01", "9999-12-31"), ("2027-01-01", "2028-01-02")):
        refused = _submit(api, team["employee"], start_date=start, end_date=end)
        assert refused.status == 400 and refused.json["details"][0]["field"] == "end_date", (start, end)
    assert _submit(api, team["employee"], start_date="2027-01-01", end_date="2028-01-01").status == 201  # 366 days


def test_tabs_and_pending_count(api, db, team):
    employee, manager, executive, head = team["employee"], team["manager"], team["exec"], team["head"]
    first = _submit(api, employee).json["request"]
    second = _submit(api, team["lead"]).json["request"]
    managers_own = _submit(api, manager).json["request"]
    make_leave(db, make_user(db), status="approved")

    def ids(user, tab):
        answer = api.get(f"/api/leave/requests?tab={tab}", as_=user)
        assert answer.status == 200, answer
        return {r["id"] for r in answer.json["requests"]}

    assert ids(employee, "mine") == {first["id"]}
    assert api.get("/api/leave/requests", as_=employee).json["requests"][0]["id"] == first["id"]  # mine by default
    assert ids(manager, "pending") == {first["id"], second["id"]}
    assert ids(executive, "pending") == {managers_own["id"]}  # the squad has a manager: the first step is theirs
    assert ids(employee, "pending") == set()
    assert api.get("/api/leave/pending-count", as_=manager).json == {"count": 2}
    assert api.get("/api/leave/pending-count", as_=executive).json == {"count": 1}
    assert len(ids(head, "all")) == 4 and len(ids(executive, "all")) == 4
    assert api.get("/api/leave/requests?tab=all", as_=manager).status == 403
    assert api.get("/api/leave/requests?tab=all", as_=employee).status == 403
    assert api.get("/api/leave/requests?tab=everything", as_=employee).status == 400
    assert api.get(f"/api/leave/requests/{first['id']}", as_=manager).status == 200
    assert api.get(f"/api/leave/requests/{first['id']}", as_=team["lead"]).status == 404
    assert api.get(f"/api/leave/requests/{first['id']}", as_=team["other_manager"]).status == 404


def test_request_list_costs_constant_statements(api, db, team, count_queries):
    counts = []
    for n in (10, 490):
        for _ in range(n):
            make_leave(db, make_user(db, squad_id=team["squad"].id))
        with count_queries() as counter:
            answer = api.get("/api/leave/requests?tab=pending", as_=team["manager"])
        assert answer.status == 200
        counts.append(counter.count)
    assert len(answer.json["requests"]) == 500
    assert counts[0] == counts[1], counts


def test_a_deactivated_squad_manager_leaves_the_first_step_to_the_executives(api, db, team):
    """The executives are notified when the squad manager is inactive, so the request awaits them: it is in their
    pending tab and count (it was in nobody's)."""
    team["manager"].is_active = False
    db.flush()
    request = _submit(api, team["employee"]).json["request"]
    assert _notified(db, team["exec"], "leave_requested") == [request["id"]]
    pending = api.get("/api/leave/requests?tab=pending", as_=team["exec"]).json["requests"]
    assert [r["id"] for r in pending] == [request["id"]]
    assert api.get("/api/leave/pending-count", as_=team["exec2"]).json == {"count": 1}


def test_a_request_pending_the_executive_step_is_rejected_or_cancelled(api, db, team):
    """Document 2, Leave request: `pending` (either step) -> reject (reason required); approved or pending ->
    cancel. The second step's approver is an executive."""
    request = _submit(api, team["manager"]).json["request"]  # pending_exec
    path = f"/api/leave/requests/{request['id']}"
    assert api.post(f"{path}/reject", as_=team["exec"], json={}).status == 400
    assert api.post(f"{path}/reject", as_=team["head"], json={"reason": "no"}).status == 403
    rejected = api.post(f"{path}/reject", as_=team["exec"], json={"reason": "Audit week"})
    assert rejected.status == 200, rejected
    assert (rejected.json["request"]["status"], rejected.json["request"]["rejection_reason"]) == (
        "rejected", "Audit week")
    assert _notified(db, team["manager"], "leave_rejected") == [request["id"]]
    other = _submit(api, team["employee"]).json["request"]
    api.post(f"/api/leave/requests/{other['id']}/approve", as_=team["manager"])  # now pending_exec
    cancelled = api.post(f"/api/leave/requests/{other['id']}/cancel", as_=team["employee"])
    assert cancelled.status == 200 and cancelled.json["request"]["status"] == "cancelled"


def test_a_request_detail_answers_at_most_500_history_entries(api, db, team):
    """decisions.md section 4: each retry of an approved request's integrations adds a history entry, so the
    detail's history could grow without end; it answers the oldest 500."""
    from datetime import datetime, timedelta, timezone

    from chalicelib.areas.leave.queries import ENTITY
    from chalicelib.core.ids import new_id
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.models import HistoryEntry

    request = _submit(api, team["exec"]).json["request"]  # approved at once: two entries
    start = datetime(2030, 1, 1, tzinfo=timezone.utc)
    insert_rows(db, HistoryEntry, [{"id": new_id(), "entity_type": ENTITY, "entity_id": request["id"],
                                    "action": "integrations_retried", "actor_id": team["exec"].id,
                                    "created_at": start + timedelta(minutes=n)} for n in range(501)])
    db.flush()
    history = api.get(f"/api/leave/requests/{request['id']}", as_=team["exec"]).json["history"]
    assert len(history) == 500
    assert [h["action"] for h in history[:3]] == ["submitted", "approved", "integrations_retried"]


def test_view_only_reads_and_every_write_needs_its_level(api, db, team):
    """Document 2, Leave: reads need view:leave, submit, decisions, cancel and the balance refresh update:leave,
    the retry manage:leave and the executive access level."""
    from tests.factories import grant

    request = _submit(api, team["employee"]).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    grant(db, team["manager"], "leave", "view")
    for read in ("/api/leave/requests?tab=pending", path, "/api/leave/pending-count"):
        assert api.get(read, as_=team["manager"]).status == 200, read
    assert api.post(f"{path}/approve", as_=team["manager"]).status == 403
    assert api.post(f"{path}/reject", as_=team["manager"], json={"reason": "no"}).status == 403
    assert api.post("/api/leave/balances/refresh", as_=team["manager"]).status == 403
    assert _submit(api, team["manager"], start_date="2027-02-01", end_date="2027-02-01").status == 403
    grant(db, team["employee"], "leave", "view")
    assert api.post(f"{path}/cancel", as_=team["employee"]).status == 403
    grant(db, team["exec"], "leave", "update")  # an executive without manage:leave
    approved = _submit(api, team["exec"], start_date="2027-03-01", end_date="2027-03-01").json["request"]
    assert api.post(f"/api/leave/requests/{approved['id']}/retry-integrations", as_=team["exec"]).status == 403
    assert api.get("/api/leave/types", as_=team["manager"]).status == 200
    grant(db, team["lead"], "leave", "none")
    assert api.get("/api/leave/requests", as_=team["lead"]).status == 403
