"""QBRs and client goals: the staff CRUD (tool deals) and the portal's presented QBRs with visibility."""
from tests.areas.deals.factories import make_company
from tests.areas.portal.conftest import make_client
from tests.factories import grant, make_user


def test_qbr_staff_crud_and_portal_visibility(api, portal, db, exec_user, employee):
    mine = make_client(db, visibility={"financials": False})
    other = make_client(db)
    base = f"/api/clients/{mine.id}/qbrs"
    body = {"title": "Q3 review", "quarter": "2030-Q3", "summary": "Good quarter", "sections": [
        {"section_key": "results", "title": "Results", "content": "Revenue up"},
        {"section_key": "internal_notes", "title": "Internal", "content": "Margin thin", "portal_visible": False},
        {"section_key": "financials", "title": "Money", "content": "Hidden by profile"}]}
    created = api.post(base, as_=exec_user, json=body)
    assert created.status == 201, created
    qbr = created.json["qbr"]
    assert qbr["status"] == "draft" and [s["position"] for s in qbr["sections"]] == [0, 1, 2]
    assert portal.get("/qbrs", mine).json["qbrs"] == []  # a draft is not shown
    reader = make_user(db)
    grant(db, reader, "deals", "view")
    assert api.get(base, as_=reader).status == 200 and api.post(base, as_=reader, json=body).status == 403
    presented = api.post(f"{base}/{qbr['id']}/present", as_=exec_user)
    assert presented.status == 200 and presented.json["qbr"]["status"] == "presented"
    assert api.post(f"{base}/{qbr['id']}/present", as_=exec_user).status == 409
    shown = portal.get("/qbrs", mine).json["qbrs"]
    assert [s["title"] for s in shown[0]["sections"]] == ["Results"]
    assert "Margin thin" not in str(shown) and "portal_visible" not in str(shown)
    assert portal.get("/qbrs", other).json["qbrs"] == []
    edited = api.put(f"{base}/{qbr['id']}", as_=exec_user, json={"sections": [
        {"section_key": "wins", "title": "Wins", "content": "Launch"}]})
    assert [s["title"] for s in edited.json["qbr"]["sections"]] == ["Wins"]
    assert api.put(f"{base}/{qbr['id']}", as_=exec_user, json={"quarter": "2030-Q5"}).status == 400
    assert api.get(f"/api/clients/{other.id}/qbrs/{qbr['id']}", as_=exec_user).status == 404
    assert [q["id"] for q in api.get(base, as_=exec_user).json["qbrs"]] == [qbr["id"]]
    prospect = make_company(db)
    assert api.get(f"/api/clients/{prospect.id}/qbrs", as_=exec_user).status == 404
    assert api.delete(f"{base}/{qbr['id']}", as_=exec_user).json == {"ok": True}
    assert api.get(f"{base}/{qbr['id']}", as_=exec_user).status == 404


def test_client_goals_staff_crud(api, db, exec_user):
    mine, other = make_client(db), make_client(db)
    base = f"/api/clients/{mine.id}/goals"
    created = api.post(base, as_=exec_user, json={"metric": "Revenue", "target": 5000.5, "unit": "AUD",
                                                   "period": "month"})
    assert created.status == 201, created
    goal = created.json["goal"]
    assert goal["source"] == "staff" and goal["target"] == 5000.5
    assert api.post(base, as_=exec_user, json={"metric": "x", "period": "decade"}).status == 400
    assert api.post(base, as_=exec_user, json={"metric": ""}).status == 400
    updated = api.put(f"{base}/{goal['id']}", as_=exec_user, json={"target": 6000})
    assert updated.json["goal"]["target"] == 6000.0
    assert api.put(f"/api/clients/{other.id}/goals/{goal['id']}", as_=exec_user, json={"target": 1}).status == 404
    assert [g["id"] for g in api.get(base, as_=exec_user).json["goals"]] == [goal["id"]]
    assert api.delete(f"{base}/{goal['id']}", as_=exec_user).json == {"ok": True}
    assert api.get(base, as_=exec_user).json["goals"] == []
    viewer = make_user(db, access_level="employee")
    grant(db, viewer, "deals", "view")
    assert api.get(base, as_=viewer).status == 200 and api.post(base, as_=viewer, json={"metric": "x"}).status == 403


def test_goal_unit_is_held_to_its_column(api, db, exec_user):
    """A goal's unit is stored in 50 characters: 51 is a 400 naming `unit` (the model allowed 100, and the database
    then refused with no field named); 50 is kept."""
    mine = make_client(db)
    base = f"/api/clients/{mine.id}/goals"
    refused = api.post(base, as_=exec_user, json={"metric": "Revenue", "unit": "u" * 51})
    assert refused.status == 400, refused
    assert refused.json["details"][0]["field"] == "unit"
    created = api.post(base, as_=exec_user, json={"metric": "Revenue", "unit": "u" * 50})
    assert created.status == 201 and created.json["goal"]["unit"] == "u" * 50, created
    refused = api.put(f"{base}/{created.json['goal']['id']}", as_=exec_user, json={"unit": "u" * 51})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "unit", refused
