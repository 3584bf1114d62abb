"""Factories of the proposals area: through the API where the rule matters, rows where only data does."""
from __future__ import annotations


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
