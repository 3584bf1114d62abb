"""Session 29, code no test ran (coverage audit): a template without content, a template's content holding
numbers, booleans and nulls, a share token past 64 characters, a cookie header without (or unreadable for) the
session cookie, and the accept's project owner who may not read projects."""
import json

from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.deals.factories import make_company
from tests.areas.proposals.factories import accept_shared, create, sent_and_shared
from tests.factories import deactivate, make_user, override_permissions

PUBLIC = "/api/proposals/public"


def _page(db, page_id):
    from chalicelib.areas.pages.models import Page

    return db.get(Page, page_id)


def test_a_template_without_content_makes_a_proposal_with_an_empty_page(api, db, exec_user):
    tid = api.post("/api/proposals/templates", as_=exec_user, json={"name": "Bare"}).json["id"]
    made = api.post("/api/proposals", as_=exec_user, json={"title": "From bare", "template_id": tid})
    assert made.status == 201, made
    page = _page(db, made.json["page_id"])
    assert page.content_rich is None and not page.content


def test_a_templates_numbers_booleans_and_nulls_are_kept_as_they_are(api, db, exec_user):
    rich = json.dumps({"type": "doc", "attrs": {"level": 2, "open": True, "mark": None},
                       "content": [{"type": "p", "text": "For {{company}}", "indent": 1.5}]})
    tid = api.post("/api/proposals/templates", as_=exec_user, json={"name": "Typed", "content_rich": rich}).json["id"]
    company = make_company(db, name="Acme")
    made = api.post("/api/proposals", as_=exec_user, json={"title": "Typed", "template_id": tid,
                                                           "company_id": company.id})
    assert made.status == 201, made
    page = _page(db, made.json["page_id"])
    assert json.loads(page.content_rich) == {"type": "doc", "attrs": {"level": 2, "open": True, "mark": None},
                                             "content": [{"type": "p", "text": "For Acme", "indent": 1.5}]}
    assert "For Acme" in page.content


def test_a_share_token_longer_than_any_is_404(api, db, exec_user):
    for path in ("", "/verify", "/accept"):
        method = api.get if not path else api.post
        answer = method(f"{PUBLIC}/{'a' * 65}{path}", json={"password": "x", "name": "A", "email": "a@b.co"})
        assert answer.status == 404, (path, answer)
        assert answer.json == {"error": "Proposal not found"}


def test_a_cookie_header_without_a_readable_session_asks_for_the_password(api, db, exec_user):
    pid = create(api, exec_user)
    for step in ("submit", "approve", "mark-sent"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=exec_user, json={}).status == 200
    token = api.put(f"/api/proposals/{pid}/share", as_=exec_user,
                    json={"share_enabled": True, "share_password": "s3cret pass"}).json["share_token"]
    for cookie in ("theme=dark", "a,=1", "=expires,secure=max-age"):  # another cookie; a header no jar reads
        answer = api.get(f"{PUBLIC}/{token}", headers={"Cookie": cookie})
        assert answer.status == 200 and answer.json == {"password_required": True}, (cookie, answer)
        refused = api.post(f"{PUBLIC}/{token}/accept", json={"name": "A", "email": "a@b.co"},
                           headers={"Cookie": cookie})
        assert refused.status == 401, (cookie, refused)
    assert api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["status"] == "sent"


def test_a_project_owner_who_may_not_read_projects_is_not_told_of_the_accept(api, db, exec_user):
    """The project an inactive owner's accept makes goes to the company's owner (session 24), who is told of it
    while they may read projects (session 25): with projects at none they could not open the link."""
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="employee")
    override_permissions(api, exec_user, boss, projects="none")
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    deactivate(db, owner)
    accept_shared(api, token)
    project_id = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["project_id"]
    assert project_id
    told = db.scalars(select(Notification).where(Notification.type == "proposal_accepted",
                                                 Notification.user_id.in_([owner.id, boss.id]))).all()
    assert told == []


def test_an_accept_that_meets_a_company_change_in_every_round_is_a_409(api, db, exec_user, monkeypatch):
    """The public accept locks the proposal's company and deal, then the proposal; a proposal that names another
    company by then (an edit committed in between) lets go and tries again. Every round meeting such an edit: 409
    with the error body, nothing accepted."""
    from sqlalchemy import update

    from chalicelib.areas.proposals import service_public
    from chalicelib.areas.proposals.models import Proposal

    first = make_company(db, name="First")
    pid, token = sent_and_shared(api, exec_user, company_id=first.id)
    lock_parents = service_public._lock_parents
    rounds = []

    def edited_meanwhile(ctx, proposal):
        locked = lock_parents(ctx, proposal)
        other = make_company(db, name=f"Other {len(rounds)}")
        db.execute(update(Proposal).where(Proposal.id == pid).values(company_id=other.id))  # the edit in between
        rounds.append(other.id)
        return locked

    monkeypatch.setattr(service_public, "_lock_parents", edited_meanwhile)
    answer = api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann", "email": "ann@acme.test"})
    assert answer.status == 409, answer
    assert answer.json == {"error": "The proposal was being changed while it was accepted: try again"}
    assert len(rounds) == service_public.ACCEPT_TRIES
    monkeypatch.undo()
    detail = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert detail["status"] == "sent" and detail["company_id"] == first.id and detail["project_id"] is None
