"""References of projects to other records (the deletes, archives and references audit)."""
from tests.areas.deals.factories import make_company
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def test_a_project_whose_company_was_deleted_can_still_be_sent_back(api, db, exec_user):
    company = make_company(db)
    project = make_project(db, company_id=company.id, members=[exec_user])
    assert api.delete(f"/api/deals/companies/{company.id}", as_=exec_user).status == 200
    record = api.get(f"/api/projects/{project.id}", as_=exec_user).json["project"]
    # the client PUTs the record it read, with a new name: the company it left alone is not checked again
    response = api.put(f"/api/projects/{project.id}", json={"name": "Renamed", "company_id": record["company_id"]},
                       as_=exec_user)
    assert response.status == 200, response
    assert response.json["project"]["name"] == "Renamed"
    # naming a company that does not exist is still refused
    other = make_project(db, members=[exec_user])
    response = api.put(f"/api/projects/{other.id}", json={"company_id": company.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"][0]["field"] == "company_id"


def test_a_deactivated_user_is_no_owner_manager_or_member(api, db, exec_user):
    gone = make_user(db, is_active=False)
    response = api.post("/api/projects", json={"name": "P", "owner_id": gone.id, "delivery_manager_id": gone.id},
                        as_=exec_user)
    assert response.status == 400, response
    assert response.json["details"] == [{"field": "owner_id", "message": "must be an active user"},
                                        {"field": "delivery_manager_id", "message": "must be an active user"}]
    project = make_project(db, members=[exec_user])
    response = api.post(f"/api/projects/{project.id}/members", json={"user_id": gone.id}, as_=exec_user)
    assert response.status == 400, response
    assert response.json["details"] == [{"field": "user_id", "message": "must be an active user"}]
    members = api.get(f"/api/projects/{project.id}/members", as_=exec_user).json["members"]
    assert gone.id not in {m["user_id"] for m in members}


def test_a_project_whose_owner_was_deactivated_can_still_be_sent_back(api, db, exec_user):
    owner = make_user(db)
    project = make_project(db, owner_id=owner.id, members=[exec_user])
    owner.is_active = False
    db.flush()
    response = api.put(f"/api/projects/{project.id}", json={"status": "on_hold", "owner_id": owner.id},
                       as_=exec_user)
    assert response.status == 200, response


def test_adding_an_existing_member_who_was_deactivated_has_no_effect(api, db, exec_user):
    """Document 1: "adding an existing member has no effect" (201 { ok: true }); the active-user rule is for a user
    becoming a member, not for one who already is (session 18 review: it answered 400)."""
    leaving = make_user(db)
    project = make_project(db, members=[exec_user, leaving])
    leaving.is_active = False
    db.flush()
    response = api.post(f"/api/projects/{project.id}/members", json={"user_id": leaving.id, "role": "lead"},
                        as_=exec_user)
    assert response.status == 201 and response.json == {"ok": True}, response
    members = api.get(f"/api/projects/{project.id}/members", as_=exec_user).json["members"]
    assert [m["role"] for m in members if m["user_id"] == leaving.id] == ["member"]
