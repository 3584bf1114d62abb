"""Session 29, "code no test runs": the performance area's lines the coverage run left unexecuted, run through the
API."""
from chalicelib.areas.performance.models import Review
from tests.factories import make_user

from .factories import create_review, make_cycle, make_template

NO_SUCH = "00000000-0000-0000-0000-000000000000"
BASE = "/api/performance"


def test_a_templates_name_and_description_are_updated_and_its_items_kept(api, db, exec_user):
    template, items = make_template(db)
    answer = api.put(f"{BASE}/templates/{template.id}", as_=exec_user,
                     json={"name": "Senior engineer", "description": "For seniors"})
    assert answer.status == 200, answer.json
    body = answer.json["template"]
    assert body["name"] == "Senior engineer" and body["description"] == "For seniors"
    assert [i["label"] for i in body["items"]] == [i.label for i in items]
    cleared = api.put(f"{BASE}/templates/{template.id}", as_=exec_user, json={"description": None})
    assert cleared.json["template"]["description"] is None
    assert api.put(f"{BASE}/templates/{template.id}", as_=exec_user, json={"name": None}).status == 400


def test_a_feedback_request_in_an_unknown_cycle_is_400_on_cycle_id(api, db, exec_user):
    subject, reviewer = make_user(db), make_user(db)
    for path, body in (("feedback/requests", {"reviewer_id": reviewer.id}), ("feedback/requests/bulk", {})):
        answer = api.post(f"{BASE}/{path}", as_=exec_user, json={"cycle_id": NO_SUCH, "subject_id": subject.id, **body})
        assert answer.status == 400, (path, answer.json)
        assert answer.json["details"][0]["field"] == "cycle_id"


def test_bulk_feedback_for_an_employee_without_a_squad_asks_nobody(api, db, exec_user):
    cycle = make_cycle(db)
    loner = make_user(db, access_level="employee")
    make_user(db, access_level="employee")  # another squadless employee is no peer
    answer = api.post(f"{BASE}/feedback/requests/bulk", as_=exec_user, json={"cycle_id": cycle.id, "subject_id": loner.id})
    assert answer.status == 201, answer.json
    assert answer.json["created"] == 0 and answer.json["total_peers"] == 0


def test_a_review_in_an_unknown_cycle_is_400_on_cycle_id(api, db, exec_user):
    person = make_user(db)
    answer = api.post(f"{BASE}/reviews", as_=exec_user, json={"cycle_id": NO_SUCH, "user_id": person.id})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "cycle_id"


def test_ratings_naming_one_kpi_twice_are_400(api, db, exec_user):
    person = make_user(db)
    make_template(db, user_ids=[person.id])
    path = f"{BASE}/reviews/{create_review(api, exec_user, make_cycle(db), person)}"
    kpi = api.get(path, as_=exec_user).json["kpi_ratings"][0]
    answer = api.put(path, as_=exec_user, json={"kpi_ratings": [{"id": kpi["id"], "rating": "achieving"},
                                                                 {"id": kpi["id"], "rating": "exceeding"}]})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "kpi_ratings"
    assert api.get(path, as_=exec_user).json["kpi_ratings"][0]["rating"] is None


def test_earlier_goals_of_a_completed_review_cannot_be_recorded(api, db, exec_user):
    person = make_user(db)
    review_id = create_review(api, exec_user, make_cycle(db), person)
    db.get(Review, review_id).status = "completed"
    db.flush()
    answer = api.put(f"{BASE}/reviews/{review_id}/previous-goals", as_=exec_user, json={"outcomes": []})
    assert answer.status == 409, answer.json
