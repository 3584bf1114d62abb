"""A deactivated user manages nobody (references audit, follow-up): a user's and a squad's `manager_id` must be
an active user when set or changed; a value sent back unchanged is not checked again."""
from tests.factories import make_squad, make_user

ACTIVE = [{"field": "manager_id", "message": "must be an active user"}]


def test_a_deactivated_user_cannot_become_a_manager(api, db, exec_user):
    gone = make_user(db, is_active=False)
    response = api.post("/api/admin/users", json={"email": "new.hire@agency.test", "name": "New Hire",
                                                  "manager_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response
    someone = make_user(db)
    response = api.put(f"/api/admin/users/{someone.id}", json={"manager_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response

    response = api.post("/api/admin/squads", json={"name": "Orange", "manager_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response
    squad = make_squad(db)
    response = api.put(f"/api/admin/squads/{squad.id}", json={"manager_id": gone.id}, as_=exec_user)
    assert response.status == 400 and response.json["details"] == ACTIVE, response


def test_a_record_whose_manager_was_deactivated_can_still_be_sent_back(api, db, exec_user):
    leaving = make_user(db)
    report = make_user(db, manager_id=leaving.id)
    squad = make_squad(db, manager_id=leaving.id)
    leaving.is_active = False
    db.flush()
    response = api.put(f"/api/admin/users/{report.id}", json={"manager_id": leaving.id, "job_title": "Designer"},
                       as_=exec_user)
    assert response.status == 200 and response.json["user"]["manager_id"] == leaving.id, response
    response = api.put(f"/api/admin/squads/{squad.id}", json={"manager_id": leaving.id, "name": "Renamed"},
                       as_=exec_user)
    assert response.status == 200 and response.json["squad"]["manager_id"] == leaving.id, response
    response = api.put(f"/api/admin/users/{report.id}", json={"manager_id": exec_user.id}, as_=exec_user)
    assert response.status == 200 and response.json["user"]["manager_id"] == exec_user.id, response


def test_the_reporting_cycle_check_costs_the_same_statements_whatever_the_chain(api, db, exec_user, count_queries):
    """The check that a user is not their own manager through their reports walks the chain in one statement (it
    read one statement per manager above)."""
    counts = []
    for depth in (2, 12):
        top = make_user(db)
        bottom = top
        for _ in range(depth):
            bottom = make_user(db, manager_id=bottom.id)
        with count_queries() as counter:
            response = api.put(f"/api/admin/users/{make_user(db).id}", json={"manager_id": bottom.id}, as_=exec_user)
        assert response.status == 200, response
        counts.append(counter.count)
        response = api.put(f"/api/admin/users/{top.id}", json={"manager_id": bottom.id}, as_=exec_user)
        assert response.status == 400 and response.json["details"][0]["message"] == "would create a reporting cycle"
    assert counts[0] == counts[1], counts
