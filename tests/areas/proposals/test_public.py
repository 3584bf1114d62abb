"""Sharing, the public viewer, analytics and public accept / decline with the onboarding automation
(decisions.md section 5; issue 16 items 3, 4, 5)."""
from datetime import date, timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.core.ids import utcnow
from chalicelib.core.models import HistoryEntry
from chalicelib.core.notify import Notification
from tests.areas.deals.factories import make_company, make_deal
from tests.areas.proposals.factories import create, price, sent
from tests.areas.proposals.priced import priced_sent

PUBLIC = "/api/proposals/public"


def share(api, user, pid, **body):
    answer = api.put(f"/api/proposals/{pid}/share", as_=user, json={"share_enabled": True, **body})
    assert answer.status == 200, answer
    return answer.json["share_token"]


def cookie_of(answer) -> str:
    header = answer.headers["set-cookie"]
    return header.split(";", 1)[0]


def status_of(api, user, pid):
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["status"]


@pytest.mark.smoke
def test_sharing_and_public_content(api, db, exec_user):
    company = make_company(db, name="Acme")
    pid = priced_sent(api, exec_user, company_id=company.id, brand_config='{"color": "red"}')
    token = share(api, exec_user, pid)
    assert len(token) >= 43 and all(c.isalnum() or c in "-_" for c in token)  # 256 bits, URL-safe
    assert share(api, exec_user, pid) == token  # kept
    content = api.get(f"{PUBLIC}/{token}")  # no token needed
    assert content.status == 200, content
    body = content.json["proposal"]
    assert body["title"] == "Website rebuild" and body["company_name"] == "Acme" and body["brand_config"] == '{"color": "red"}'
    assert [s["title"] for s in body["sections"]] == ["Build", "Care"] and body["total_amount"] == 4560.97
    assert "id" not in body and "owner_id" not in body and "share_token" not in body and "speaker_notes" not in body
    assert "id" not in body["sections"][0]["items"][0]
    assert status_of(api, exec_user, pid) == "viewed"
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert detail["viewed_at"] and detail["share_enabled"] == 1
    api.get(f"{PUBLIC}/{token}")
    actions = db.scalars(select(HistoryEntry.action).where(HistoryEntry.entity_id == pid)).all()
    assert actions.count("viewed") == 1  # only the first view moves it
    assert api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": False}).json == {
        "share_token": token}
    for path in ("", "/verify", "/track", "/accept", "/decline"):
        method = api.get if not path else api.post
        answer = method(f"{PUBLIC}/{token}{path}", json={"password": "x", "session_id": "s", "slide_index": 0,
                                                         "duration_delta": 1, "name": "A", "email": "a@b.co"})
        assert answer.status == 404, (path, answer)
    assert api.get(f"{PUBLIC}/unknown-token").status == 404
    draft = create(api, exec_user)
    assert api.get(f"{PUBLIC}/{share(api, exec_user, draft)}").json["proposal"]["status"] == "draft"


def test_password_protection(api, db, exec_user):
    from chalicelib.areas.proposals.models import Proposal

    pid = sent(api, exec_user)
    token = share(api, exec_user, pid, share_password="s3cret pass")
    stored = db.scalar(select(Proposal.share_password).where(Proposal.id == pid))
    assert stored.startswith("scrypt$") and "s3cret" not in stored
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert "share_password" not in detail and detail["share_protected"] == 1
    listed = next(p for p in api.get("/api/proposals", as_=exec_user).json["proposals"] if p["id"] == pid)
    assert listed == {key: detail[key] for key in listed} and listed["share_protected"] == 1
    assert api.get(f"{PUBLIC}/{token}").json == {"password_required": True}
    assert status_of(api, exec_user, pid) == "sent"  # not viewed without the password
    wrong = api.post(f"{PUBLIC}/{token}/verify", json={"password": "nope"})
    assert wrong.status == 401 and set(wrong.json) == {"error"} and "set-cookie" not in wrong.headers
    right = api.post(f"{PUBLIC}/{token}/verify", json={"password": "s3cret pass"})
    assert right.status == 200 and right.json == {"ok": True}
    header = right.headers["set-cookie"]
    for part in ("HttpOnly", "Secure", "SameSite=Lax", "Max-Age=86400", f"Path=/api/proposals/public/{token}"):
        assert part in header
    session = cookie_of(right)
    assert api.get(f"{PUBLIC}/{token}", headers={"Cookie": session}).json["proposal"]["title"] == "Website rebuild"
    assert status_of(api, exec_user, pid) == "viewed"
    # forged: a changed signature or expiry
    name, _, value = session.partition("=")
    expires, _, mac = value.partition(".")
    forged = [f"{name}={expires}.{'0' * len(mac)}", f"{name}={int(expires) + 999}.{mac}", f"{name}=garbage",
              "proposal_session=", f"{name}={int(expires) - 90000}.{mac}"]
    for cookie in forged:
        assert api.get(f"{PUBLIC}/{token}", headers={"Cookie": cookie}).json == {"password_required": True}, cookie
    # foreign: the session of another proposal's token
    other = sent(api, exec_user)
    other_token = share(api, exec_user, other, share_password="s3cret pass")
    assert api.get(f"{PUBLIC}/{other_token}", headers={"Cookie": session}).json == {"password_required": True}
    # a password change ends the sessions
    share(api, exec_user, pid, share_password="another one")
    assert api.get(f"{PUBLIC}/{token}", headers={"Cookie": session}).json == {"password_required": True}
    # actions need the session too
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 401
    assert api.post(f"{PUBLIC}/{token}/track", json={"session_id": "s", "slide_index": 0,
                                                     "duration_delta": 1}).status == 401
    # clearing the password opens it
    share(api, exec_user, pid, share_password="")
    assert "proposal" in api.get(f"{PUBLIC}/{token}").json


def test_wrong_passwords_are_throttled_per_token(api, db, exec_user):
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid, share_password="right password")
    other = share(api, exec_user, sent(api, exec_user), share_password="right password")
    for _ in range(10):
        assert api.post(f"{PUBLIC}/{token}/verify", json={"password": "wrong"}).status == 401
    limited = api.post(f"{PUBLIC}/{token}/verify", json={"password": "right password"})
    assert limited.status == 429 and limited.json["error"]
    assert api.post(f"{PUBLIC}/{other}/verify", json={"password": "right password"}).status == 200  # per token
    from chalicelib.areas.proposals.models import ProposalPasswordAttempt
    from sqlalchemy import update
    db.execute(update(ProposalPasswordAttempt).values(created_at=utcnow() - timedelta(minutes=16)))
    db.flush()
    assert api.post(f"{PUBLIC}/{token}/verify", json={"password": "right password"}).status == 200  # the window passed
    assert api.post(f"{PUBLIC}/{token}/verify", json={}).status == 400


def test_track_and_analytics(api, db, exec_user, employee):
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid)
    for session, slide, delta in (("a", 0, 5), ("a", 0, 2.5), ("a", 1, 10), ("b", 0, 3)):
        answer = api.post(f"{PUBLIC}/{token}/track", json={"session_id": session, "slide_index": slide,
                                                           "duration_delta": delta})
        assert answer.status == 200 and answer.json == {"ok": True}
    for bad in ({"session_id": "a", "slide_index": -1, "duration_delta": 1},
                {"session_id": "a", "slide_index": 0, "duration_delta": 99999},
                {"session_id": "", "slide_index": 0, "duration_delta": 1},
                {"session_id": "a" * 101, "slide_index": 0, "duration_delta": 1},
                {"session_id": "a", "slide_index": "1", "duration_delta": 1},
                {"slide_index": 0, "duration_delta": 1}):
        assert api.post(f"{PUBLIC}/{token}/track", json=bad).status == 400, bad
    assert api.post(f"{PUBLIC}/nope/track", json={"session_id": "a", "slide_index": 0, "duration_delta": 1}).status == 404
    result = api.get(f"/api/proposals/{pid}/analytics", as_=exec_user).json
    assert result["analytics"] == [
        {"slide_index": 0, "views": 3, "sessions": 2, "total_duration": 10.5, "average_duration": 5.25},
        {"slide_index": 1, "views": 1, "sessions": 1, "total_duration": 10.0, "average_duration": 10.0}]
    by_session = {s["session_id"]: s for s in result["sessions"]}
    assert by_session["a"]["slides_viewed"] == 2 and by_session["a"]["total_duration"] == 17.5
    assert result["total_sessions"] == 2 and result["total_duration"] == 20.5
    assert api.get(f"/api/proposals/{pid}/analytics", as_=employee).status == 404  # not theirs


def test_accept_runs_the_onboarding_automation(api, db, exec_user):
    from chalicelib.areas.budgets.models import Budget, BudgetLineItem
    from chalicelib.areas.clients.models import Contract
    from chalicelib.areas.deals.models import Deal
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.areas.projects.models import Project, ProjectMember

    company = make_company(db, name="Acme")
    deal = make_deal(db, company_id=company.id)
    owner = exec_user
    pid = create(api, owner, company_id=company.id, deal_id=deal.id)
    price(api, owner, pid)
    for step in ("submit", "approve", "mark-sent"):
        api.post(f"/api/proposals/{pid}/{step}", as_=owner, json={})
    token = share(api, owner, pid)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann"}).status == 400
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann", "email": "not-an-email"}).status == 400
    accepted = api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann Client", "email": "ann@acme.test"})
    assert accepted.status == 200 and accepted.json == {"success": True}
    detail = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]
    assert detail["status"] == "accepted" and detail["accepted_at"] and detail["responder_email"] == "ann@acme.test"
    project = db.get(Project, detail["project_id"])
    assert project.company_id == company.id and project.owner_id == owner.id and project.name == "Website rebuild"
    assert db.scalar(select(ProjectMember.role).where(ProjectMember.project_id == project.id)) == "owner"
    budget = db.get(Budget, detail["budget_id"])
    assert (budget.resource_type, budget.resource_id, budget.status, str(budget.total_amount)) == (
        "project", project.id, "draft", "4560.97")
    lines = db.scalars(select(BudgetLineItem).where(BudgetLineItem.budget_id == budget.id)
                       .order_by(BudgetLineItem.position)).all()
    assert [line.description for line in lines] == ["Build: Design", "Build: Development", "Care: Support"]
    assert budget.budget_type == "fixed_price"
    # the draft invoice generated from that budget: one line of the whole accepted price
    invoice = api.get(f"/api/invoices/{detail['invoice_id']}", as_=owner).json
    assert (invoice["invoice"]["status"], invoice["invoice"]["budget_id"], invoice["invoice"]["company_id"],
            invoice["invoice"]["subtotal"]) == ("draft", budget.id, company.id, 4560.97)
    assert [(l["description"], l["amount"]) for l in invoice["line_items"]] == [("Website rebuild: fixed price", 4560.97)]
    contract = db.get(Contract, detail["contract_id"])
    assert contract.status == "signed" and contract.proposal_id == pid and contract.company_id == company.id
    assert contract.signers[0]["name"] == "Ann Client" and contract.signers[0]["email"] == "ann@acme.test"
    assert contract.signers[0]["signed_at"]
    db.expire_all()
    assert db.get(Deal, deal.id).status == "won"
    assert db.scalar(select(Notification.id).where(Notification.user_id == owner.id,
                                                   Notification.type == "proposal_accepted"))
    counts = [db.scalar(select(func.count()).select_from(m)) for m in (Project, Budget, Contract, Invoice)]
    assert counts == [1, 1, 1, 1]
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann", "email": "ann@acme.test"}).status == 409
    assert api.post(f"{PUBLIC}/{token}/decline", json={"name": "Ann", "email": "ann@acme.test"}).status == 409
    assert [db.scalar(select(func.count()).select_from(m)) for m in (Project, Budget, Contract, Invoice)] == counts


def test_accept_without_company_or_pricing(api, db, exec_user):
    from chalicelib.areas.clients.models import Contract
    from chalicelib.areas.projects.models import Project

    pid = sent(api, exec_user)
    token = share(api, exec_user, pid)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 200
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert detail["budget_id"] is None and detail["invoice_id"] is None
    assert db.get(Project, detail["project_id"]).company_id is None and db.get(Contract, detail["contract_id"])


def test_accept_rolls_everything_back_when_a_step_fails(api, db, exec_user, monkeypatch):
    from chalicelib.areas.budgets.models import Budget
    from chalicelib.areas.clients import service as clients_service
    from chalicelib.areas.clients.models import Contract
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.areas.projects.models import Project
    from chalicelib.core.errors import Conflict

    pid = priced_sent(api, exec_user, company_id=make_company(db).id)
    token = share(api, exec_user, pid)
    before = [db.scalar(select(func.count()).select_from(m)) for m in (Project, Budget, Contract, Invoice)]

    def broken(*args, **kwargs):  # the contract step fails after the project, budget and invoice were written
        raise Conflict("contract store refused")

    monkeypatch.setattr(clients_service, "create_contract_for", broken)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 409
    assert [db.scalar(select(func.count()).select_from(m)) for m in (Project, Budget, Contract, Invoice)] == before
    assert status_of(api, exec_user, pid) == "sent"
    monkeypatch.undo()
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 200
    assert [db.scalar(select(func.count()).select_from(m)) for m in (Project, Budget, Contract, Invoice)] == [
        n + 1 for n in before]


def test_decline_and_answerable_states(api, db, exec_user):
    from chalicelib.areas.proposals.models import Proposal

    pid = sent(api, exec_user)
    token = share(api, exec_user, pid)
    assert api.post(f"{PUBLIC}/{token}/decline", json={"email": "a@b.co"}).status == 400
    declined = api.post(f"{PUBLIC}/{token}/decline", json={"name": "A", "email": "a@b.co", "reason": "Too dear"})
    assert declined.json == {"success": True}
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert detail["status"] == "declined" and detail["decline_reason"] == "Too dear" and detail["declined_at"]
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 409
    draft = create(api, exec_user)
    draft_token = share(api, exec_user, draft)
    assert api.post(f"{PUBLIC}/{draft_token}/accept", json={"name": "A", "email": "a@b.co"}).status == 409
    for status in ("review", "approved", "viewed"):
        other = create(api, exec_user)
        db.get(Proposal, other).status = status
        db.flush()
        assert api.post(f"{PUBLIC}/{share(api, exec_user, other)}/accept",
                        json={"name": "A", "email": "a@b.co"}).status == 200, status


def test_expiry(api, db, exec_user):
    from chalicelib.areas.proposals import jobs
    from chalicelib.areas.proposals.models import Proposal

    past = date.today() - timedelta(days=2)
    later = (date.today() + timedelta(days=5)).isoformat()

    def sent_then_passed() -> str:  # the API refuses to send a proposal whose date has passed (session 28)
        pid = sent(api, exec_user, valid_until=later)
        db.get(Proposal, pid).valid_until = past
        db.flush()
        return pid

    pid = sent_then_passed()
    token = share(api, exec_user, pid)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 409
    assert api.get(f"{PUBLIC}/{token}").json["proposal"]["status"] == "expired"
    assert status_of(api, exec_user, pid) == "expired"
    assert api.post(f"{PUBLIC}/{token}/decline", json={"name": "A", "email": "a@b.co"}).status == 409
    # the daily job
    other = sent_then_passed()
    draft = create(api, exec_user, valid_until=past.isoformat())
    future = sent(api, exec_user, valid_until=(date.today() + timedelta(days=5)).isoformat())
    assert jobs.proposal_expiry()["expired"] >= 1
    assert jobs.proposal_expiry()["expired"] == 0  # idempotent
    db.expire_all()
    assert [db.get(Proposal, p).status for p in (other, draft, future)] == ["expired", "draft", "sent"]


def test_accept_with_pricing_completes_the_companys_first_invoice_milestone(api, db, exec_user):
    """Document 2, Events: the onboarding automation's invoice is the company's first invoice, which completes
    its client onboarding milestone `first_invoice` (docs/decisions/invoices.md)."""
    base = "/api/admin/onboarding-templates/client"
    tid = api.post(base, as_=exec_user, json={"name": "Billing"}).json["template"]["id"]
    api.patch(f"{base}/{tid}", as_=exec_user, json={"is_default": True})
    stage = api.post(f"{base}/{tid}/stages", as_=exec_user, json={"name": "Billing", "stage_type": "billing"})
    milestone = api.post(f"{base}/stages/{stage.json['stage']['id']}/milestones", as_=exec_user,
                         json={"title": "First invoice", "auto_source": "first_invoice"})
    assert milestone.status == 201, milestone
    company = make_company(db, name="Acme", status="client")
    pid = priced_sent(api, exec_user, company_id=company.id)
    token = share(api, exec_user, pid)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 200
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["invoice_id"]
    progress = api.get(f"/api/clients/{company.id}/onboarding", as_=exec_user).json["onboarding"]
    done = [(m["title"], m["source"]) for s in progress["stages"] for m in s["milestones"] if m["completed_at"]]
    assert done == [("First invoice", "first_invoice")]


def test_accept_makes_a_prospect_company_a_client_with_its_profile(api, db, exec_user):
    """A company that accepted a proposal has a signed contract, a project and an invoice with the agency: the
    accept makes a prospect a client, with its client profile (docs/decisions/proposals.md); a client stays one."""
    prospect = make_company(db, name="Newco")
    assert api.get(f"/api/clients/{prospect.id}/profile", as_=exec_user).status == 404  # no profile yet
    pid = sent(api, exec_user, company_id=prospect.id)
    token = share(api, exec_user, pid)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 200
    company = api.get(f"/api/deals/companies/{prospect.id}", as_=exec_user).json["company"]
    assert company["status"] == "client"
    profile = api.get(f"/api/clients/{prospect.id}/profile", as_=exec_user)
    assert profile.status == 200 and profile.json["profile"]["dashboard_enabled"] == 0
    changes = db.scalar(select(HistoryEntry.changes).where(HistoryEntry.entity_id == pid,
                                                           HistoryEntry.action == "accepted"))
    assert changes["company_became_client"] == prospect.id

    client = make_company(db, name="Oldco", status="client")
    api.post(f"/api/clients/{client.id}/profile", as_=exec_user, json={})  # 409: it has one already, or makes it
    api.put(f"/api/clients/{client.id}/profile", as_=exec_user, json={"client_group": "Key"})
    pid = sent(api, exec_user, company_id=client.id)
    token = share(api, exec_user, pid)
    assert api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"}).status == 200
    assert api.get(f"/api/clients/{client.id}/profile", as_=exec_user).json["profile"]["client_group"] == "Key"
    changes = db.scalar(select(HistoryEntry.changes).where(HistoryEntry.entity_id == pid,
                                                           HistoryEntry.action == "accepted"))
    assert "company_became_client" not in changes


def test_a_proposal_in_any_status_is_duplicated_as_a_draft(api, db, exec_user):
    """Document 2, Proposal transitions: any -> duplicate -> a new proposal in draft."""
    from chalicelib.areas.proposals.models import Proposal

    for status in ("accepted", "declined", "expired", "sent"):
        pid = create(api, exec_user)
        db.get(Proposal, pid).status = status
        db.flush()
        copy = api.post(f"/api/proposals/{pid}/duplicate", as_=exec_user)
        assert copy.status == 201, (status, copy)
        assert status_of(api, exec_user, copy.json["proposal"]["id"]) == "draft"


def test_proposal_expiry_is_an_hourly_job_run_by_hand(db, exec_user, capsys):
    """decisions.md section 8: proposal expiry is scheduled and can be run with `cli job proposal-expiry`."""
    import json

    from chalicelib import cli

    # hourly: a proposal past valid_until is expired within the hour after the organisation's midnight (a daily rate
    # runs at whatever hour the rule was made: a day late at worst; jobs audit)
    assert "rate(1 hour)" == cli.scheduled_jobs()["proposal-expiry"].schedule_expression.to_string()
    assert cli.main(["job", "proposal-expiry"]) == 0
    assert "expired" in json.loads(capsys.readouterr().out)


def test_decline_needs_name_and_email_and_the_reason_is_optional(api, db, exec_user):
    """Document 2, Proposal transitions: public decline -- name and email given, reason optional."""
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid)
    for body in ({"name": "A"}, {"email": "a@b.co"}, {"name": "A", "email": "not-an-email"}, {}):
        assert api.post(f"{PUBLIC}/{token}/decline", json=body).status == 400, body
    assert status_of(api, exec_user, pid) == "sent"
    declined = api.post(f"{PUBLIC}/{token}/decline", json={"name": "A", "email": "a@b.co"})
    assert declined.status == 200 and declined.json == {"success": True}
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert (detail["status"], detail["decline_reason"]) == ("declined", None) and detail["declined_at"]


@pytest.mark.parametrize("value", ['"9999999999.\\351"', '"\\262.abc"', "9" * 5000 + ".abc"])
def test_a_hostile_session_cookie_is_no_session(api, db, exec_user, value):
    """decisions.md section 4 (500 never on purpose): a quoted cookie may spell non-ASCII characters as octal
    escapes, and a long digit string is past Python's int limit. Such a proposal_session was a 500 (hmac of a
    non-ASCII str, int('²'), int of 5,000 digits); it is no session: the content asks for the password, and
    track, accept and decline answer 401."""
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid, share_password="pass word")
    cookie = {"Cookie": f"proposal_session={value}"}
    content = api.get(f"{PUBLIC}/{token}", headers=cookie)
    assert (content.status, content.json) == (200, {"password_required": True})
    track = api.post(f"{PUBLIC}/{token}/track", headers=cookie,
                     json={"session_id": "s", "slide_index": 0, "duration_delta": 1})
    assert track.status == 401
    assert api.post(f"{PUBLIC}/{token}/accept", headers=cookie, json={"name": "A", "email": "a@b.co"}).status == 401
    assert status_of(api, exec_user, pid) == "sent"


def test_a_share_password_has_at_least_8_characters(api, db, exec_user):
    """Anyone with the link may guess, 10 tries each 15 minutes: a 4-digit PIN fell in days (audit S1). A shorter
    password is a 400 naming share_password and changes nothing; empty still clears it."""
    from chalicelib.areas.proposals.models import Proposal

    pid = sent(api, exec_user)
    short = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True, "share_password": "1234"})
    assert short.status == 400 and short.json["details"][0]["field"] == "share_password", short
    assert db.scalar(select(Proposal.share_password).where(Proposal.id == pid)) is None
    share(api, exec_user, pid, share_password="12345678")
    assert db.scalar(select(Proposal.share_password).where(Proposal.id == pid)).startswith("scrypt$")
    share(api, exec_user, pid, share_password="")
    assert db.scalar(select(Proposal.share_password).where(Proposal.id == pid)) is None
