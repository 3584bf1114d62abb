"""Session 18: a note's mentions cost a constant number of statements, whatever their number (docs/area-contract.md:
no per-row statements). Who may read the note's text is asked of all mentioned users at once: their principals in
one statement, then the record's scope as each of them in one more (notes.queries.readers)."""
import pytest
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.announcements.factories import make_announcement
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.invoices.factories import make_invoice
from tests.areas.performance.factories import make_cycle, make_review
from tests.areas.projects.factories import add_member, make_project
from tests.areas.tasks.factories import make_task
from tests.factories import grant, make_user

LEVELS = ("employee", "lead", "manager", "head", "executive")
TOOLS = {"task": "tasks", "project": "projects", "budget": "budgets", "person": "performance", "review": "performance",
         "company": "deals", "contact": "deals", "deal": "deals", "announcement": "announcements",
         "invoice": "invoices", "proposal": "proposals"}


def _record(api, db, resource_type, owner, author):
    """A record of this type that `owner` (an employee) is tied to, made by or for `author` (an executive)."""
    if resource_type == "task":
        return make_task(db, title="Shared", assignee_id=owner.id).id
    if resource_type == "project":
        project = make_project(db, owner_id=owner.id)
        return project.id
    if resource_type == "budget":
        project = make_project(db, owner_id=owner.id)
        add_member(db, project, owner)
        return make_budget(db, resource_id=project.id).id
    if resource_type == "person":
        return owner.id
    if resource_type == "review":
        return make_review(db, cycle=make_cycle(db), user=owner).id
    if resource_type == "company":
        return make_company(db).id
    if resource_type == "contact":
        return make_contact(db).id
    if resource_type == "deal":
        return make_deal(db).id
    if resource_type == "announcement":
        return make_announcement(db).id
    if resource_type == "invoice":
        return make_invoice(db).id
    from tests.areas.proposals.factories import create

    return create(api, author)


@pytest.mark.parametrize("resource_type", list(TOOLS))
def test_mentions_cost_the_same_statements_at_3_and_30(api, db, exec_user, count_queries, aws, resource_type):
    """(`aws`: deliveries go to the queue, not sent inline.) Each mentioned user holds view on the record's tool (so each one's scope must be asked); the old code ran
    the record's load-or-404 once per mentioned user. The text still goes exactly to who reads the note (the
    note list answered to them shows it)."""
    owner = make_user(db, access_level="employee", name="Owner")
    for tool in set(TOOLS.values()):
        grant(db, owner, tool, "view")
    record_id = _record(api, db, resource_type, owner, exec_user)
    users = [owner]
    for n in range(29):
        user = make_user(db, access_level=LEVELS[n % len(LEVELS)], manager_id=owner.id if n % 7 == 0 else None)
        grant(db, user, TOOLS[resource_type], "view")
        users.append(user)
    counts, notes = [], []
    for mentioned in (users[:3], users):
        with count_queries() as counter:
            made = api.post(f"/api/notes/{resource_type}/{record_id}", as_=exec_user,
                            json={"content": "Read me", "mentions": [u.id for u in mentioned]})
        assert made.status == 201, made
        counts.append(counter.count)
        notes.append(made.json["id"])
    assert counts[0] == counts[1], counts
    bodies = {n.user_id: n.body for n in db.scalars(select(Notification).where(Notification.resource_id == notes[1]))}
    assert set(bodies) == {u.id for u in users}
    for user in users:
        answer = api.get(f"/api/notes/{resource_type}/{record_id}", as_=user)
        reads = answer.status == 200 and notes[1] in {n["id"] for n in answer.json["notes"]}
        assert (bodies[user.id] == "Read me") == reads, (resource_type, user.access_level, answer.status)
