"""A client goal sent back as read (the staff editor PUTs the whole record) keeps its `updated_at`; a real change
moves it (session 25, save-back audit)."""
from datetime import timedelta

import pytest
from sqlalchemy import text

from chalicelib.core.ids import utcnow
from tests.areas.portal.conftest import make_client


def _made(api, db, exec_user, **fields):
    company = make_client(db)
    base = f"/api/clients/{company.id}/goals"
    made = api.post(base, as_=exec_user, json={"metric": "Revenue", "target": 1234.55, "unit": "AUD",
                                               "period": "month", **fields})
    assert made.status == 201, made
    goal_id = made.json["goal"]["id"]
    db.execute(text("UPDATE client_goals SET updated_at = :aged WHERE id = :id"),
               {"aged": utcnow() - timedelta(days=1), "id": goal_id})
    db.commit()
    goal = next(g for g in api.get(base, as_=exec_user).json["goals"] if g["id"] == goal_id)
    return f"{base}/{goal_id}", goal


@pytest.mark.parametrize("sent", ["whole", "target_only", "target_as_text"])
def test_client_goal_sent_back_keeps_updated_at(api, db, exec_user, sent):
    path, goal = _made(api, db, exec_user)
    body = {"whole": goal, "target_only": {"target": goal["target"]}, "target_as_text": {"target": "1234.550"}}[sent]
    same = api.put(path, as_=exec_user, json=body)
    assert same.status == 200, same
    assert same.json["goal"] == goal


@pytest.mark.parametrize("change", [{"target": 1234.56}, {"metric": "Profit"}, {"unit": None}])
def test_client_goal_change_moves_updated_at(api, db, exec_user, change):
    path, goal = _made(api, db, exec_user)
    changed = api.put(path, as_=exec_user, json=goal | change)
    assert changed.status == 200, changed
    got = changed.json["goal"]
    assert {k: got[k] for k in change} == change
    assert got["updated_at"] > goal["updated_at"]
