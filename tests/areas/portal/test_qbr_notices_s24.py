"""Session 24: a QBR deleted after it was presented takes its `portal_qbr_presented` notices with it (they pointed
at a QBR the portal no longer lists); other QBRs' notices, and other companies', stay."""
from .conftest import make_client


def _notices(portal, company, user="pu-1"):
    answer = portal.get("/notifications", company, user=user)
    assert answer.status == 200, answer
    return [(n["type"], n["resource_id"]) for n in answer.json["notifications"]]


def _presented(api, exec_user, company, title):
    qbr = api.post(f"/api/clients/{company.id}/qbrs", as_=exec_user,
                   json={"title": title, "quarter": "2030-Q3"}).json["qbr"]
    assert api.post(f"/api/clients/{company.id}/qbrs/{qbr['id']}/present", as_=exec_user).status == 200
    return qbr


def test_a_deleted_presented_qbr_leaves_no_notice(portal, db, api, exec_user):
    mine, other = make_client(db), make_client(db)
    assert portal.get("/notifications/unread-count", mine, user="pu-a").status == 200
    assert portal.get("/notifications/unread-count", other, user="pu-b").status == 200
    kept = _presented(api, exec_user, mine, "Q3 review")
    gone = _presented(api, exec_user, mine, "Q3 review: churn risk")
    theirs = _presented(api, exec_user, other, "Their review")
    assert len(_notices(portal, mine, "pu-a")) == 2
    assert api.delete(f"/api/clients/{mine.id}/qbrs/{gone['id']}", as_=exec_user).json == {"ok": True}
    assert [q["id"] for q in portal.get("/qbrs", mine, user="pu-a").json["qbrs"]] == [kept["id"]]
    assert _notices(portal, mine, "pu-a") == [("portal_qbr_presented", kept["id"])]
    assert portal.get("/notifications/unread-count", mine, user="pu-a").json["unread_count"] == 1
    assert _notices(portal, other, "pu-b") == [("portal_qbr_presented", theirs["id"])]
