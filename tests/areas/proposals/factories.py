"""Factories of the proposals area: through the API where the rule matters, rows where only data does."""
from __future__ import annotations

from tests.areas.deals.factories import make_company
from tests.factories import deactivate, make_user

PUBLIC = "/api/proposals/public"


def create(api, user, **body) -> str:
    answer = api.post("/api/proposals", as_=user, json={"title": "Website rebuild", **body})
    assert answer.status == 201, answer
    return answer.json["id"]


def sent(api, user, **body) -> str:
    """A proposal moved to sent by `user` (an executive: proposals:manage approves when none is listed)."""
    pid = create(api, user, **body)
    for step in ("submit", "approve", "mark-sent"):
        answer = api.post(f"/api/proposals/{pid}/{step}", as_=user, json={})
        assert answer.status == 200, (step, answer)
    return pid


def price(api, user, pid, sections=None) -> None:
    sections = sections or [{"title": "Build", "items": [
        {"description": "Design", "quantity": 2, "unit_price": "1500.50"},
        {"description": "Development", "quantity": "10.5", "unit_price": 120}]},
        {"title": "Care", "items": [{"description": "Support", "quantity": 3, "unit_price": "99.99"}]}]
    answer = api.put(f"/api/proposals/{pid}/pricing", as_=user, json={"sections": sections})
    assert answer.status == 200, answer


def share(api, user, pid) -> str:
    """Sharing of proposal `pid` turned on by `user`: answers its share token."""
    return api.put(f"/api/proposals/{pid}/share", as_=user, json={"share_enabled": True}).json["share_token"]


def sent_and_shared(api, owner, **body) -> tuple[str, str]:
    """A priced proposal of `owner` (an executive: they approve their own when nobody is listed), sent and shared:
    (its id, its share token)."""
    pid = create(api, owner, **body)
    price(api, owner, pid)
    for step in ("submit", "approve", "mark-sent"):
        assert api.post(f"/api/proposals/{pid}/{step}", as_=owner, json={}).status == 200, step
    return pid, share(api, owner, pid)


def accept_shared(api, token) -> None:
    """The client (Ann) accepts the proposal shared as `token` through the public route, answered 200."""
    answer = api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann", "email": "ann@acme.test"})
    assert answer.status == 200, answer


def shared_with_no_active_owner(api, db):
    """A proposal of an executive (`sent_and_shared`) for a company another executive owns, both then deactivated:
    (proposal owner, company owner, proposal id, share token)."""
    owner = make_user(db, access_level="executive")
    boss = make_user(db, access_level="executive")
    company = make_company(db, owner_id=boss.id)
    pid, token = sent_and_shared(api, owner, company_id=company.id)
    deactivate(db, owner)
    deactivate(db, boss)
    return owner, boss, pid, token
