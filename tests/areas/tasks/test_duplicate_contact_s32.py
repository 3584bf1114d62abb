"""Session 32 (audit "a rule enforced on one write path and not on another"): a task's reporting contact is seen with
`deals:view` (session 29): a create or an update naming one without it is a 400, and docs/decisions/tasks.md says a
duplicate leaves such a link null, as it leaves a project, deal, company, roadmap item or sprint the caller may not
view. The duplicate's `copied_links` checked every link but the contact, so the copy named it all the same."""
from tests.areas.deals.factories import make_contact
from tests.factories import grant, make_user


def test_a_duplicate_leaves_null_a_contact_the_caller_may_not_view(api, db, exec_user):
    contact = make_contact(db)
    original = api.post("/api/tasks", as_=exec_user, json={"title": "Reported", "reported_by_contact_id": contact.id})
    assert original.status == 201, original
    task_id = original.json["task"]["id"]
    head = make_user(db, access_level="head")
    grant(db, head, "deals", "none")  # an override: this head may not view contacts
    refused = api.post("/api/tasks", as_=head, json={"title": "Reported", "reported_by_contact_id": contact.id})
    assert refused.status == 400, refused  # the create's rule
    copy = api.post(f"/api/tasks/{task_id}/duplicate", as_=head)
    assert copy.status == 201, copy
    assert copy.json["task"]["reported_by_contact_id"] is None, copy.json["task"]
    grant(db, head, "deals", "view")
    kept = api.post(f"/api/tasks/{task_id}/duplicate", as_=head)
    assert kept.status == 201 and kept.json["task"]["reported_by_contact_id"] == contact.id, kept.json["task"]


def test_a_duplicate_keeps_its_contact_for_a_deals_viewer(api, db, exec_user):
    contact = make_contact(db)
    original = api.post("/api/tasks", as_=exec_user, json={"title": "Reported", "reported_by_contact_id": contact.id})
    copy = api.post(f"/api/tasks/{original.json['task']['id']}/duplicate", as_=exec_user)
    assert copy.status == 201 and copy.json["task"]["reported_by_contact_id"] == contact.id, copy
