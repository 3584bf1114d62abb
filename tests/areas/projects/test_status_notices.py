"""`project_status_changed` (docs/decisions/projects.md, "Notifications"): when a project's status really changes,
its owner, delivery manager and members are told, except the one who changed it, and only those who may read the
project (active, `projects:view`, the project in their scope). On a change to `completed` that sends the delivery
manager `project_completed`, the delivery manager gets that notice and not this one. Core notify de-duplicates a
second change within 5 minutes (document 3, Events)."""
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.factories import grant, make_squad, make_user

from .factories import make_project

TYPE = "project_status_changed"


@pytest.fixture
def boss(db):
    return make_user(db, access_level="executive", name="Boss")


def notices(api, user, type=TYPE):
    """The user's in-app notifications of this type, as they list them (GET /api/notifications)."""
    response = api.get("/api/notifications", as_=user)
    assert response.status == 200, response
    return [n for n in response.json["notifications"] if n["type"] == type]


def set_status(api, project, user, status, **more):
    response = api.put(f"/api/projects/{project.id}", json={"status": status, **more}, as_=user)
    assert response.status == 200, response
    return response.json["project"]


def test_owner_delivery_manager_and_members_are_told_but_not_the_actor(api, db):
    squad = make_squad(db)
    owner = make_user(db, name="Olga Owner")
    delivery = make_user(db, access_level="lead")
    member = make_user(db)
    manager = make_user(db, access_level="manager", squad_id=squad.id)
    actor = make_user(db)  # a member who changes the status
    project = make_project(db, name="Apollo", owner_id=owner.id, delivery_manager_id=delivery.id,
                           members=[member, manager, actor])
    set_status(api, project, actor, "on_hold")
    for person in (owner, delivery, member, manager):
        [told] = notices(api, person)
        assert told["title"] == "Project status changed: Apollo is now on_hold"
        assert told["body"] == f"{actor.name} changed the status from active to on_hold."
        assert (told["resource_type"], told["resource_id"], told["action_url"], told["actor_id"]) == (
            "project", project.id, f"/projects/{project.id}", actor.id)
        assert api.get(f"/api/projects/{project.id}", as_=person).status == 200  # each may read it
    assert notices(api, actor) == []


def test_only_those_who_may_read_the_project_are_told(api, db, boss):
    """A member without projects:view, a deactivated member and a user outside the project are told nothing."""
    member = make_user(db)
    blocked = make_user(db)                     # a member whose projects permission was taken away
    grant(db, blocked, "projects", "none")
    gone = make_user(db, is_active=False)       # deactivated: core notify tells them nothing
    outsider = make_user(db)                    # neither owner, delivery manager nor member
    project = make_project(db, name="Hermes", owner_id=boss.id, members=[member, blocked, gone])
    set_status(api, project, boss, "paused")
    assert [n["title"] for n in notices(api, member)] == ["Project status changed: Hermes is now paused"]
    assert api.get(f"/api/projects/{project.id}", as_=blocked).status in (403, 404)  # indeed cannot read it
    for person in (blocked, gone, outsider):
        assert db.scalars(select(Notification).where(Notification.user_id == person.id)).all() == []
    assert notices(api, boss) == []  # the actor


def test_a_write_that_does_not_change_the_status_sends_nothing(api, db, boss):
    member = make_user(db)
    project = make_project(db, name="Still", owner_id=boss.id, members=[member])
    set_status(api, project, boss, "active")                        # the stored value sent back
    set_status(api, project, boss, "active", description="New words")  # another field changed
    response = api.put(f"/api/projects/{project.id}", json={"name": "Still going"}, as_=boss)
    assert response.status == 200, response
    assert notices(api, member) == []
    set_status(api, project, boss, "on_hold")  # a real change is told (not hidden by a notice of the writes above)
    assert [n["title"] for n in notices(api, member)] == ["Project status changed: Still going is now on_hold"]


def test_a_failed_update_leaves_no_notice(api, db, boss):
    member = make_user(db)
    project = make_project(db, owner_id=boss.id, members=[member])
    response = api.put(f"/api/projects/{project.id}", json={"status": "on_hold", "owner_id": "ghost"}, as_=boss)
    assert response.status == 400
    assert notices(api, member) == []
    set_status(api, project, boss, "on_hold")  # told now (no notice of the failed request de-duplicates it)
    assert len(notices(api, member)) == 1


def test_a_second_change_within_five_minutes_is_deduplicated(api, db, boss):
    member = make_user(db)
    project = make_project(db, name="Zeus", owner_id=boss.id, members=[member])
    set_status(api, project, boss, "on_hold")
    set_status(api, project, boss, "active")  # within 5 minutes: core notify skips it
    assert [n["title"] for n in notices(api, member)] == ["Project status changed: Zeus is now on_hold"]
    db.execute(update(Notification).where(Notification.user_id == member.id)
               .values(created_at=utcnow() - timedelta(minutes=6)))
    set_status(api, project, boss, "closed")  # past the window: told again
    assert [n["title"] for n in notices(api, member)] == ["Project status changed: Zeus is now closed",
                                                          "Project status changed: Zeus is now on_hold"]


def test_completion_tells_the_delivery_manager_once(api, db, boss):
    """With a company, the delivery manager gets `project_completed` and not also this notice; the owner and the
    members get this one. Without a company there is no `project_completed`: the delivery manager gets this one."""
    company = api.post("/api/deals/companies", json={"name": "Client Co"}, as_=boss).json["company"]
    owner, delivery, member = make_user(db), make_user(db), make_user(db)
    client_project = make_project(db, name="Client work", owner_id=owner.id, delivery_manager_id=delivery.id,
                                  company_id=company["id"], members=[member])
    set_status(api, client_project, boss, "completed")
    assert notices(api, delivery) == []
    assert [n["resource_id"] for n in notices(api, delivery, "project_completed")] == [client_project.id]
    for person in (owner, member):
        assert [n["title"] for n in notices(api, person)] == ["Project status changed: Client work is now completed"]
        assert notices(api, person, "project_completed") == []

    internal = make_project(db, name="Internal", owner_id=owner.id, delivery_manager_id=delivery.id)
    set_status(api, internal, boss, "completed")
    assert [n["title"] for n in notices(api, delivery)] == ["Project status changed: Internal is now completed"]
    assert [n["resource_id"] for n in notices(api, delivery, "project_completed")] == [client_project.id]


def test_a_delivery_manager_completing_their_project_gets_only_the_completion_notice(api, db, boss):
    company = api.post("/api/deals/companies", json={"name": "Own Co"}, as_=boss).json["company"]
    delivery, member = make_user(db), make_user(db)
    project = make_project(db, name="Own", owner_id=boss.id, delivery_manager_id=delivery.id,
                           company_id=company["id"], members=[member])
    set_status(api, project, delivery, "completed")
    assert notices(api, delivery) == []
    assert len(notices(api, delivery, "project_completed")) == 1  # unchanged: the specification names no exception
    assert len(notices(api, boss)) == 1 and len(notices(api, member)) == 1


def test_the_notice_costs_the_same_statements_for_few_and_many_members(api, db, boss, count_queries, aws):
    """With the notifications queue configured (as deployed), so that delivery is not counted. A status change costs
    the same at 2 and 20 members, and an update that leaves the status alone sends no notification statement."""
    changed, unchanged = [], []
    for size in (2, 20):
        people = [make_user(db, access_level=("employee", "lead", "manager", "head")[n % 4]) for n in range(size)]
        project = make_project(db, owner_id=boss.id, members=people)
        with count_queries() as counter:
            set_status(api, project, boss, "on_hold")
        changed.append(counter.count)
        assert all(len(notices(api, person)) == 1 for person in people)
        with count_queries() as counter:
            set_status(api, project, boss, "on_hold", description=f"Size {size}")
        unchanged.append(counter.count)
        assert not any("notification" in statement for statement in counter.statements)
    assert changed[0] == changed[1], changed
    assert unchanged[0] == unchanged[1], unchanged

