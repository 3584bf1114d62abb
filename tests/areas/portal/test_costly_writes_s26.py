"""Session 26 (audit "costly calls anyone can repeat"): the portal's writes a client could repeat without bound.

A connect spends the agency's ad-platform quota (a verify call and a 30-day read), a request e-mails and chats the
delivery manager, a note e-mails the record's staff: each is counted per company per hour (core.allowance
`ad_connect` 10, `portal_request` 30, `portal_note` 60), 429 with `retry_after` past it, nothing done. Re-posting an
account already connected answers 409 without asking the platform. The staff route is not limited."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.portal.models import AdConnection
from chalicelib.core.allowance import PER_HOUR
from chalicelib.core.ids import utcnow
from chalicelib.core.models import ProviderUse
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client
from tests.factories import make_user

GOOGLE = {"platform": "google_ads", "display_name": "Google Ads",
          "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//refresh-g"}}
META = {"platform": "meta_ads", "display_name": "Meta",
        "credentials": {"ad_account_id": "act_998877", "access_token": "EAAB-meta"}}


@pytest.fixture
def ad_calls(monkeypatch):
    from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform

    calls = {"verify": 0, "daily_metrics": 0}
    verify, metrics = SandboxAdPlatform.verify, SandboxAdPlatform.daily_metrics

    def counted_verify(self):
        calls["verify"] += 1
        return verify(self)

    def counted_metrics(self, since, until):
        calls["daily_metrics"] += 1
        return metrics(self, since, until)

    monkeypatch.setattr(SandboxAdPlatform, "verify", counted_verify)
    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", counted_metrics)
    return calls


def seed(db, kind: str, key: str, uses: int) -> None:
    """`uses` uses of `kind` by company `key`, 50 minutes ago (they leave the hour in about 10 minutes)."""
    db.add_all([ProviderUse(kind=kind, key=key, created_at=utcnow() - timedelta(minutes=50)) for _ in range(uses)])
    db.flush()


def count(db, model, *where) -> int:
    return db.scalar(select(func.count()).select_from(model).where(*where))


def refused_for_an_hour(answer) -> None:
    assert answer.status == 429, answer
    assert answer.json["error"] and 590 <= answer.json["retry_after"] <= 601, answer.json


def test_an_account_connected_already_answers_409_without_asking_the_platform(portal, db, ad_calls):
    mine = make_client(db, dashboard=True, manager=make_user(db))
    assert portal.post("/connections", mine, role="collaborator", json=GOOGLE).status == 201
    before = dict(ad_calls)
    for _ in range(3):
        again = portal.post("/connections", mine, role="collaborator", json=GOOGLE)
        assert again.status == 409 and again.json["error"] == "This account is connected already", again
    assert ad_calls == before  # neither a verify nor a read


def test_a_company_connects_at_most_10_accounts_an_hour(portal, api, db, exec_user, ad_calls):
    """Connect and disconnect in a loop re-read the platform each time (the sync's cooldown is per connection row):
    past 10 connects in an hour the company's next is a 429 and the platform is not asked; another company is not
    affected, nor the staff route, and a use older than the hour no longer counts."""
    mine, other = make_client(db, dashboard=True), make_client(db, dashboard=True)
    seed(db, "ad_connect", mine.id, PER_HOUR["ad_connect"] - 1)
    made = portal.post("/connections", mine, role="collaborator", json=GOOGLE)
    assert made.status == 201, made
    assert portal.delete(f"/connections/{made.json['connection']['id']}", mine, role="collaborator").status == 200
    before = dict(ad_calls)
    refused_for_an_hour(portal.post("/connections", mine, role="collaborator", json=GOOGLE))
    refused_for_an_hour(portal.post("/connections", mine, role="collaborator", json=META))
    assert ad_calls == before and count(db, AdConnection, AdConnection.company_id == mine.id) == 0
    assert portal.post("/connections", other, role="collaborator", json=GOOGLE).status == 201
    # the staff route is not limited (staff connect for the agency; a portal client cannot reach it)
    staff = api.post(f"/api/clients/{mine.id}/connections", as_=exec_user, json=GOOGLE)
    assert staff.status == 201, staff
    for use in db.scalars(select(ProviderUse).where(ProviderUse.kind == "ad_connect", ProviderUse.key == mine.id)):
        use.created_at -= timedelta(minutes=15)  # the seeded uses are now past the hour
    db.flush()
    assert portal.post("/connections", mine, role="collaborator", json=META).status == 201


def test_a_company_files_at_most_30_requests_an_hour(portal, db):
    from chalicelib.areas.tasks.models import Task
    from tests.areas.projects.factories import make_project

    manager = make_user(db)
    mine, other = make_client(db, manager=manager), make_client(db, manager=manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    seed(db, "portal_request", mine.id, PER_HOUR["portal_request"] - 1)
    body = {"title": "Please look", "projectId": project.id}
    assert portal.post("/requests", mine, role="collaborator", json=body).status == 201
    told = count(db, Notification, Notification.user_id == manager.id, Notification.type == "portal_request")
    tasks = count(db, Task, Task.resource_id == project.id)
    assert told == 1 and tasks == 1
    # another request (an identical one within 60 s is a double submit answered with the first: session 27)
    again = {**body, "title": "Please look again"}
    refused_for_an_hour(portal.post("/requests", mine, role="collaborator", json=again))
    assert count(db, Notification, Notification.user_id == manager.id, Notification.type == "portal_request") == told
    assert count(db, Task, Task.resource_id == project.id) == tasks
    assert portal.post("/requests", other, role="collaborator", json={"title": "Ours"}).status == 201


def test_a_company_writes_at_most_60_notes_an_hour(portal, db):
    from chalicelib.areas.notes.models import Note
    from tests.areas.projects.factories import make_project

    manager = make_user(db)
    mine, other = make_client(db, manager=manager), make_client(db, manager=manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    theirs = make_project(db, company_id=other.id, delivery_manager_id=manager.id)
    seed(db, "portal_note", mine.id, PER_HOUR["portal_note"] - 1)
    body = {"resourceType": "project", "resourceId": project.id, "content": "Looks good"}
    assert portal.post("/notes", mine, role="collaborator", json=body).status == 201
    told = count(db, Notification, Notification.user_id == manager.id, Notification.type == "portal_note")
    assert told == 1
    # another note (an identical one within 60 s is a double submit answered with the first: session 27)
    refused_for_an_hour(portal.post("/notes", mine, role="collaborator", json={**body, "content": "Looks great"}))
    assert count(db, Notification, Notification.user_id == manager.id, Notification.type == "portal_note") == told
    assert count(db, Note, Note.resource_id == project.id) == 1
    assert portal.post("/notes", other, role="collaborator", json={**body, "resourceId": theirs.id}).status == 201
