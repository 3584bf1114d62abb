"""Portal notifications delivered (issue 19 item 3): the portal user's e-mail address recorded from
X-Portal-User-Email, e-mail through the notifications queue and the mail provider after commit (only when the
preference has e-mail on), and the producers: QBR presented, budget pending approval, request updated, note
reply, announcement."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalNotification, PortalNotificationPreference, PortalUser
from chalicelib.core.notify_models import NotificationDelivery
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_deal
from tests.areas.notifications.factories import outbox
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import status


def _seen(portal, company, user, email=None):
    headers = {"X-Portal-User-Email": email} if email else None
    answer = portal.get("/notifications/unread-count", company, user=user, headers=headers)
    assert answer.status == 200, answer


def _mine(db, company, user):
    db.expire_all()
    return list(db.scalars(select(PortalNotification).where(PortalNotification.company_id == company.id,
                                                           PortalNotification.portal_user_id == user)))


def _mail_to(db):
    return sorted(m.target for m in outbox(db, "mail"))


def test_the_email_header_is_recorded_and_validated(portal, db):
    mine = make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    _seen(portal, mine, "pu-1")  # an absent header keeps the address
    db.expire_all()
    row = db.get(PortalUser, (mine.id, "pu-1"))
    assert row.email == "ann@client.example" and row.role == "viewer"
    _seen(portal, mine, "pu-1", "new@client.example")
    db.expire_all()
    assert db.get(PortalUser, (mine.id, "pu-1")).email == "new@client.example"
    for bad in ("not-an-address", "a b@c.example", "x@" + "y" * 320 + ".example"):
        answer = portal.get("/projects", mine, headers={"X-Portal-User-Email": bad})
        assert answer.status == 400 and answer.json["details"][0]["field"] == "X-Portal-User-Email", bad


def test_qbr_presented_in_app_and_email_after_commit_per_preference(portal, db, api, exec_user):
    mine, other = make_client(db), make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    _seen(portal, mine, "pu-2", "bob@client.example")
    _seen(portal, mine, "pu-3")  # no address known: in-app only
    _seen(portal, other, "pu-9", "eve@other.example")
    off = {"preferences": [{"notification_type": "portal_qbr_presented", "channel_in_app": True,
                            "channel_email": False}]}
    assert portal.put("/notifications/preferences", mine, user="pu-2", json=off).status == 200
    qbr = api.post(f"/api/clients/{mine.id}/qbrs", json={"title": "Q1 review", "quarter": "2026-Q1"},
                   as_=exec_user).json["qbr"]
    assert _mail_to(db) == []
    presented = api.post(f"/api/clients/{mine.id}/qbrs/{qbr['id']}/present", as_=exec_user)
    assert presented.status == 200, presented
    assert _mail_to(db) == ["ann@client.example"]
    for user in ("pu-1", "pu-2", "pu-3"):
        (notice,) = _mine(db, mine, user)
        assert notice.type == "portal_qbr_presented" and notice.resource_id == qbr["id"]
    assert _mine(db, other, "pu-9") == []
    delivery = db.scalar(select(NotificationDelivery).where(NotificationDelivery.target == "ann@client.example"))
    assert (delivery.channel, delivery.status, delivery.user_id) == ("email", "sent", None)
    listed = portal.get("/notifications", mine, user="pu-1").json["notifications"]
    assert [n["title"] for n in listed] == ["Quarterly business review: Q1 review"]


def test_nothing_is_sent_when_the_request_fails(portal, db, api, exec_user):
    mine = make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    qbr = api.post(f"/api/clients/{mine.id}/qbrs", json={"title": "Q1", "quarter": "2026-Q1"},
                   as_=exec_user).json["qbr"]
    assert api.post(f"/api/clients/{mine.id}/qbrs/{qbr['id']}/present", as_=exec_user).status == 200
    assert api.post(f"/api/clients/{mine.id}/qbrs/{qbr['id']}/present", as_=exec_user).status == 409
    assert _mail_to(db) == ["ann@client.example"] and len(_mine(db, mine, "pu-1")) == 1


def test_budget_pending_approval_notifies_the_company_of_its_project_or_deal(portal, db, api, exec_user):
    mine, other = make_client(db), make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    _seen(portal, other, "pu-9", "eve@other.example")
    on_project = make_budget(db, resource_id=make_project(db, company_id=mine.id).id, status="draft", name="Build")
    on_deal = make_budget(db, resource_type="deal", resource_id=make_deal(db, company_id=mine.id).id,
                          status="draft", name="Deal budget")
    for budget in (on_project, on_deal):
        answer = api.put(f"/api/budgets/{budget.id}", json={"status": "pending_approval"}, as_=exec_user)
        assert answer.status == 200, answer
    notices = _mine(db, mine, "pu-1")
    assert sorted(n.title for n in notices) == ["Budget awaiting your approval: Build",
                                                 "Budget awaiting your approval: Deal budget"]
    assert _mail_to(db) == ["ann@client.example", "ann@client.example"]  # portal_budget_pending: e-mail by default
    # another status change notifies nobody
    assert api.put(f"/api/budgets/{on_project.id}", json={"status": "active"}, as_=exec_user).status == 200
    assert len(_mine(db, mine, "pu-1")) == 2 and _mine(db, other, "pu-9") == []
    # a budget created already awaiting approval tells them too; a draft one does not
    project = make_project(db, company_id=mine.id)
    for name, state in (("Created pending", "pending_approval"), ("Created draft", "draft")):
        made = api.post("/api/budgets", as_=exec_user, json={"name": name, "resource_type": "project",
                                                              "resource_id": project.id, "status": state})
        assert made.status == 201, made
    assert sorted(n.title for n in _mine(db, mine, "pu-1")) == [
        "Budget awaiting your approval: Build", "Budget awaiting your approval: Created pending",
        "Budget awaiting your approval: Deal budget"]
    assert _mine(db, other, "pu-9") == []


def test_request_updated_notifies_its_requester_email_only_when_turned_on(portal, db, api, exec_user):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _seen(portal, mine, "pu-1", "ann@client.example")
    _seen(portal, mine, "pu-2", "bob@client.example")
    made = portal.post("/requests", mine, role="collaborator", user="pu-1",
                       json={"title": "Fix the footer", "projectId": project.id})
    assert made.status == 201, made
    task_id = made.json["taskId"]
    doing = status(db, "in_progress")
    assert api.put(f"/api/tasks/{task_id}", json={"status_id": doing.id}, as_=exec_user).status == 200
    (notice,) = _mine(db, mine, "pu-1")
    assert notice.type == "portal_request_updated" and notice.resource_id == task_id
    assert _mine(db, mine, "pu-2") == [] and _mail_to(db) == []  # e-mail off by default for this type
    on = {"preferences": [{"notification_type": "portal_request_updated", "channel_in_app": False,
                           "channel_email": True}]}
    assert portal.put("/notifications/preferences", mine, user="pu-1", json=on).status == 200
    done = status(db, "done")
    assert api.put(f"/api/tasks/{task_id}", json={"status_id": done.id}, as_=exec_user).status == 200
    assert _mail_to(db) == ["ann@client.example"] and len(_mine(db, mine, "pu-1")) == 1  # in-app turned off
    # a title change is not a status change
    assert api.put(f"/api/tasks/{task_id}", json={"title": "Fix the footer now"}, as_=exec_user).status == 200
    assert _mail_to(db) == ["ann@client.example"]


def test_note_reply_visible_to_the_client_notifies_the_notes_author(portal, db, api, exec_user):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _seen(portal, mine, "pu-1", "ann@client.example")
    created = portal.post("/notes", mine, role="collaborator", user="pu-1",
                          json={"resourceType": "project", "resourceId": project.id, "content": "When is launch?"})
    assert created.status == 201, created
    base = f"/api/notes/project/{project.id}"
    internal = api.post(base, json={"content": "internal only", "parent_id": created.json["id"],
                                    "visibility": ["executive"]}, as_=exec_user)
    assert internal.status == 201, internal
    assert _mine(db, mine, "pu-1") == []
    reply = api.post(base, json={"content": "Next Tuesday", "parent_id": created.json["id"],
                                 "visibility": ["client", "executive"]}, as_=exec_user)
    assert reply.status == 201, reply
    (notice,) = _mine(db, mine, "pu-1")
    assert (notice.type, notice.body, notice.resource_id) == ("portal_note_reply", "Next Tuesday", reply.json["id"])
    # a reply to a staff note is not a reply to the client
    staff_note = api.post(base, json={"content": "x", "visibility": ["client", "executive"]}, as_=exec_user).json["id"]
    api.post(base, json={"content": "y", "parent_id": staff_note, "visibility": ["client", "executive"]},
             as_=exec_user)
    assert len(_mine(db, mine, "pu-1")) == 1


def test_company_announcement_notifies_every_portal_user(portal, db, api, exec_user):
    mine, other = make_client(db), make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    _seen(portal, other, "pu-9", "eve@other.example")
    team = api.post("/api/announcements", json={"title": "Office party", "content": "Friday", "category": "team"},
                    as_=exec_user)
    assert team.status == 201, team
    assert _mine(db, mine, "pu-1") == []
    made = api.post("/api/announcements", json={"title": "New service", "content": "We now do SEO",
                                                "category": "company"}, as_=exec_user)
    assert made.status == 201, made
    for company, user in ((mine, "pu-1"), (other, "pu-9")):
        (notice,) = _mine(db, company, user)
        assert notice.type == "portal_announcement" and notice.title == "Announcement: New service"
    assert _mail_to(db) == []  # portal_announcement: e-mail off by default


def test_fan_out_costs_constant_statements(portal, db, api, exec_user, count_queries):
    companies = [make_client(db) for _ in range(3)]

    def announce(title):
        with count_queries() as counted:
            assert api.post("/api/announcements", json={"title": title, "content": "x", "category": "company"},
                            as_=exec_user).status == 201
        return counted.count

    for index in range(5):
        _seen(portal, companies[index % 3], f"pu-{index}", f"u{index}@client.example")
    small = announce("A")
    for index in range(5, 60):
        _seen(portal, companies[index % 3], f"pu-{index}", f"u{index}@client.example")
    assert announce("B") == small


def test_the_email_goes_through_the_notifications_queue_and_worker(portal, db, api, exec_user, aws, client):
    """With a queue configured: the request only queues the delivery (after commit); the staff notifications'
    worker sends it through the mail provider."""
    import json

    from tests.areas.notifications.test_worker import WORKER, _event, _receive

    mine = make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    qbr = api.post(f"/api/clients/{mine.id}/qbrs", json={"title": "Q2", "quarter": "2026-Q2"},
                   as_=exec_user).json["qbr"]
    assert _receive(aws["sqs"], aws["queue_url"]) == []
    assert api.post(f"/api/clients/{mine.id}/qbrs/{qbr['id']}/present", as_=exec_user).status == 200
    messages = _receive(aws["sqs"], aws["queue_url"])
    db.expire_all()
    delivery = db.scalar(select(NotificationDelivery).where(NotificationDelivery.target == "ann@client.example"))
    assert [json.loads(m["Body"]) for m in messages] == [{"delivery_id": delivery.id, "channel": "email"}]
    assert delivery.status == "pending" and _mail_to(db) == []  # the queue delivers, not the request
    assert client.lambda_.invoke(WORKER, _event(client, messages)).payload == {"batchItemFailures": []}
    assert _mail_to(db) == ["ann@client.example"]
    db.expire_all()
    assert db.get(NotificationDelivery, delivery.id).status == "sent"


def test_a_former_client_is_told_nothing(portal, db, api, exec_user):
    """The portal is for clients: a company that is no longer a client answers 404 on every portal route
    (document 3, "Client portal"; docs/decisions/portal.md), so its portal users are no longer told of the
    agency's announcements, QBRs or budgets: the announcement went to every portal user ever recorded, the
    e-mail included."""
    mine, former = make_client(db), make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    _seen(portal, former, "pu-2", "old@former.example")
    former.status = "prospect"
    db.flush()
    assert portal.get("/dashboard", former, user="pu-2").status == 404
    # the former client's user has e-mail on for announcements
    db.add(PortalNotificationPreference(company_id=former.id, portal_user_id="pu-2",
                                        notification_type="portal_announcement", channel_in_app=True,
                                        channel_email=True))
    db.flush()
    made = api.post("/api/announcements", json={"title": "New service", "content": "We now do SEO",
                                                "category": "company"}, as_=exec_user)
    assert made.status == 201, made
    assert [n.type for n in _mine(db, mine, "pu-1")] == ["portal_announcement"]
    assert _mine(db, former, "pu-2") == []
    assert _mail_to(db) == []


def _email_on(portal, company, user, type_):
    on = {"preferences": [{"notification_type": type_, "channel_in_app": True, "channel_email": True}]}
    assert portal.put("/notifications/preferences", company, user=user, json=on).status == 200


def test_a_note_reply_on_a_project_moved_to_another_client_is_told_to_nobody(portal, db, api, exec_user):
    """Security audit S4 (docs/decisions/portal.md): the reply's text went, in-app and by e-mail, to the first
    client's author of the note after staff moved the project to another client."""
    mine, other = make_client(db), make_client(db)
    project = make_project(db, company_id=mine.id)
    _seen(portal, mine, "pu-1", "ann@client.example")
    _seen(portal, other, "pu-9", "eve@other.example")
    _email_on(portal, mine, "pu-1", "portal_note_reply")
    created = portal.post("/notes", mine, role="collaborator", user="pu-1",
                          json={"resourceType": "project", "resourceId": project.id, "content": "When is launch?"})
    assert created.status == 201, created
    moved = api.put(f"/api/projects/{project.id}", json={"company_id": other.id}, as_=exec_user)
    assert moved.status == 200, moved
    assert portal.get(f"/projects/{project.id}", mine).status == 404
    reply = api.post(f"/api/notes/project/{project.id}",
                     json={"content": "Other client's launch: budget 90k", "parent_id": created.json["id"],
                           "visibility": ["client", "executive"]}, as_=exec_user)
    assert reply.status == 201, reply
    assert [(n.type, n.body) for n in _mine(db, mine, "pu-1")] == []
    assert _mine(db, other, "pu-9") == [] and _mail_to(db) == []


def test_a_note_reply_on_a_voided_invoice_is_told_to_nobody(portal, db, api, exec_user):
    from tests.areas.invoices.factories import make_invoice

    mine = make_client(db)
    invoice = make_invoice(db, company_id=mine.id, status="sent")
    _seen(portal, mine, "pu-1", "ann@client.example")
    _email_on(portal, mine, "pu-1", "portal_note_reply")
    created = portal.post("/notes", mine, role="collaborator", user="pu-1",
                          json={"resourceType": "invoice", "resourceId": invoice.id, "content": "Why this total?"})
    assert created.status == 201, created
    base = f"/api/notes/invoice/{invoice.id}"
    told = api.post(base, json={"content": "Hours of March", "parent_id": created.json["id"],
                                "visibility": ["client", "executive"]}, as_=exec_user)
    assert told.status == 201, told
    assert [(n.type, n.body) for n in _mine(db, mine, "pu-1")] == [("portal_note_reply", "Hours of March")]
    assert _mail_to(db) == ["ann@client.example"]
    voided = api.put(f"/api/invoices/{invoice.id}", json={"status": "voided"}, as_=exec_user)
    assert voided.status == 200, voided
    assert portal.get(f"/invoices/{invoice.id}", mine).status == 404
    reply = api.post(base, json={"content": "Voided: billed to the parent group instead", "parent_id":
                                 created.json["id"], "visibility": ["client", "executive"]}, as_=exec_user)
    assert reply.status == 201, reply
    assert len(_mine(db, mine, "pu-1")) == 1 and _mail_to(db) == ["ann@client.example"]


def test_a_request_without_a_project_is_not_told_of_its_status_changes(portal, db, api, exec_user):
    """A request without projectId is a task of the company in no project: the portal shows it nowhere (its only
    list of tasks is GET /projects/:id/tasks), so its status changes are told to nobody (docs/decisions/portal.md);
    once staff move it into a project of the company, they are."""
    from chalicelib.areas.tasks.models import Task

    mine = make_client(db)
    _seen(portal, mine, "pu-1", "ann@client.example")
    made = portal.post("/requests", mine, role="collaborator", user="pu-1", json={"title": "New landing page"})
    assert made.status == 201, made
    task_id = made.json["taskId"]
    db.expire_all()
    task = db.get(Task, task_id)
    assert (task.resource_type, task.resource_id) == ("company", mine.id)
    changed = api.put(f"/api/tasks/{task_id}", json={"status_id": status(db, "in_progress").id}, as_=exec_user)
    assert changed.status == 200, changed
    assert _mine(db, mine, "pu-1") == []
    project = make_project(db, company_id=mine.id)
    assert api.put(f"/api/tasks/{task_id}", json={"resource_type": "project", "resource_id": project.id},
                   as_=exec_user).status == 200
    assert [t["id"] for t in portal.get(f"/projects/{project.id}/tasks", mine).json["tasks"]] == [task_id]
    assert api.put(f"/api/tasks/{task_id}", json={"status_id": status(db, "done").id}, as_=exec_user).status == 200
    assert [n.title for n in _mine(db, mine, "pu-1")] == ["Your request was updated: New landing page"]
