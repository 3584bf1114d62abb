"""Session 26 (limits audit): a client holds at most 500 goals (decisions.md section 4; docs/decisions/paging.md:
no list is cut silently). The staff list answers the oldest 500 by creation, so a 501st goal was created (201) and
never listed. Now the staff create refuses it with 409, and the portal questionnaire (which replaces the goals it
made before) is refused when the company's other goals plus its new ones would pass 500."""
from datetime import timedelta

from sqlalchemy import func, select

from chalicelib.areas.portal.models import ClientGoal, ClientQuestionnaire
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import insert_rows
from tests.areas.portal.conftest import make_client


def _goals(db, company, n: int, *, source: str = "staff") -> None:
    start = utcnow() - timedelta(days=10)
    insert_rows(db, ClientGoal, [{"id": new_id(), "company_id": company.id, "metric": f"m{i}", "source": source,
                                  "created_at": start + timedelta(seconds=i), "updated_at": start}
                                 for i in range(n)])
    db.commit()


def _count(db, company) -> int:
    return db.scalar(select(func.count()).select_from(ClientGoal).where(ClientGoal.company_id == company.id))


def test_the_501st_staff_goal_is_refused_and_the_500th_listed(api, db, exec_user):
    company = make_client(db)
    _goals(db, company, 499)
    base = f"/api/clients/{company.id}/goals"
    made = api.post(base, as_=exec_user, json={"metric": "the 500th"})
    assert made.status == 201, made
    refused = api.post(base, as_=exec_user, json={"metric": "the 501st"})
    assert refused.status == 409, refused
    assert refused.json["error"] == "A client holds at most 500 goals", refused.json
    assert _count(db, company) == 500
    listed = api.get(base, as_=exec_user).json["goals"]
    assert len(listed) == 500 and made.json["goal"]["id"] in {g["id"] for g in listed}
    # another client is not held by this one's goals
    other = make_client(db)
    assert api.post(f"/api/clients/{other.id}/goals", as_=exec_user, json={"metric": "x"}).status == 201
    # a deleted goal makes room again
    assert api.delete(f"{base}/{made.json['goal']['id']}", as_=exec_user).status == 200
    assert api.post(base, as_=exec_user, json={"metric": "again"}).status == 201


def test_the_questionnaire_may_not_take_the_goals_past_500(portal, api, db, exec_user):
    company = make_client(db)
    _goals(db, company, 495)
    body = {"financial_year_start": "July", "goals": [{"metric": f"q{i}"} for i in range(6)]}
    refused = portal.post("/questionnaire", company, role="admin", json=body)
    assert refused.status == 409, refused
    assert refused.json["error"] == "A client holds at most 500 goals", refused.json
    assert _count(db, company) == 495
    db.expire_all()
    assert db.get(ClientQuestionnaire, company.id) is None  # nothing of the refused submit is kept

    body["goals"] = body["goals"][:5]
    assert portal.post("/questionnaire", company, role="admin", json=body).status == 200
    assert _count(db, company) == 500
    # a resubmission replaces the questionnaire's own goals: they do not count against it
    body["goals"] = [{"metric": f"r{i}"} for i in range(5)]
    assert portal.post("/questionnaire", company, role="admin", json=body).status == 200
    assert _count(db, company) == 500
    assert db.scalar(select(func.count()).select_from(ClientGoal).where(
        ClientGoal.company_id == company.id, ClientGoal.metric.like("r%"))) == 5
    # a submit without goals leaves them alone and is not refused
    assert portal.post("/questionnaire", company, role="admin", json={"financial_year_end": "June"}).status == 200
    # the staff create is refused at 500 questionnaire and staff goals together
    assert api.post(f"/api/clients/{company.id}/goals", as_=exec_user, json={"metric": "x"}).status == 409
    # fewer questionnaire goals make room for a staff one
    body["goals"] = body["goals"][:4]
    assert portal.post("/questionnaire", company, role="admin", json=body).status == 200
    assert api.post(f"/api/clients/{company.id}/goals", as_=exec_user, json={"metric": "x"}).status == 201
    assert _count(db, company) == 500


def test_the_questionnaire_read_lists_every_goal_of_the_client(portal, db):
    """The portal's questionnaire read stopped at the oldest 200 goals, unsaid; a client holds at most 500."""
    company = make_client(db)
    _goals(db, company, 500)
    answer = portal.get("/questionnaire", company)
    assert answer.status == 200, answer
    assert len(answer.json["profile"]["goals"]) == 500
