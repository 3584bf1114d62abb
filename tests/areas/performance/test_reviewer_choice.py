"""Who names the reviewer (docs/decisions/performance.md, "Reviewer choice"): on one's own review, the reviewer is
oneself (the default: a manager-level colleague then judges) or one's manager; a manager, head or executive
creating someone else's review names any active user; an executive names anyone on their own."""
import pytest

from tests.areas.performance.factories import make_cycle, make_template
from tests.factories import make_squad, make_user


@pytest.fixture
def people(db):
    boss = make_user(db, access_level="manager", name="Boss")
    squad = make_squad(db, manager_id=boss.id)
    employee = make_user(db, squad_id=squad.id, name="Emma")
    friend = make_user(db, squad_id=squad.id, name="Friend")
    line_manager = make_user(db, access_level="manager")
    reported = make_user(db, manager_id=line_manager.id)
    return type("People", (), dict(boss=boss, employee=employee, friend=friend, line_manager=line_manager,
                                   reported=reported))


def _create(api, caller, cycle, user, **extra):
    return api.post("/api/performance/reviews", as_=caller, json={"cycle_id": cycle.id, "user_id": user.id, **extra})


def test_an_employee_cannot_name_a_colleague_to_rate_them(api, db, people):
    make_template(db, user_ids=[people.employee.id])
    cycle = make_cycle(db)
    answer = _create(api, people.employee, cycle, people.employee, reviewer_id=people.friend.id)
    assert answer.status == 403, answer
    assert "manager" in answer.json["error"]
    assert api.get("/api/performance/reviews", as_=people.friend).json["reviews"] == []


def test_an_employee_names_their_squad_manager_or_themselves(api, db, people):
    cycle = make_cycle(db)
    named = _create(api, people.employee, cycle, people.employee, reviewer_id=people.boss.id)
    assert named.status == 201, named
    assert named.json["review"]["reviewer_id"] == people.boss.id
    other = make_cycle(db)
    default = _create(api, people.employee, other, people.employee)
    assert default.status == 201 and default.json["review"]["reviewer_id"] == people.employee.id
    third = make_cycle(db)
    assert _create(api, people.employee, third, people.employee, reviewer_id=people.employee.id).status == 201


def test_an_employee_names_their_direct_manager(api, db, people):
    cycle = make_cycle(db)
    assert _create(api, people.reported, cycle, people.reported, reviewer_id=people.line_manager.id).status == 201
    other = make_cycle(db)
    assert _create(api, people.reported, other, people.reported, reviewer_id=people.boss.id).status == 403


def test_a_manager_names_a_peer_only_for_someone_else(api, db, people):
    cycle = make_cycle(db)
    for_member = _create(api, people.boss, cycle, people.employee, reviewer_id=people.friend.id)
    assert for_member.status == 201, for_member
    own = _create(api, people.boss, cycle, people.boss, reviewer_id=people.line_manager.id)
    assert own.status == 403, own


def test_an_executive_names_anyone(api, db, people):
    executive = make_user(db, access_level="executive")
    cycle = make_cycle(db)
    assert _create(api, executive, cycle, executive, reviewer_id=people.friend.id).status == 201
