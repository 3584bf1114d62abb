"""Session 29: docs/decisions/performance.md claim by claim against the code (decisions audit)."""
from tests.areas.performance.factories import create_review, make_cycle
from tests.factories import make_squad, make_user


def _alerts(api, user):
    return api.get("/api/performance/alerts", as_=user).json


def test_own_review_is_not_a_review_to_rate(api, db):
    """`pending_reviews` counts the reviews the caller rates; nobody judges themselves, so an employee's own review
    (its reviewer defaults to them) is a self-assessment to write, not a review to rate: it was counted in both."""
    cycle = make_cycle(db)
    manager = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id)
    review_id = create_review(api, person, cycle, person)  # reviewer: the person (the default)
    path = f"/api/performance/reviews/{review_id}"
    assert api.put(path, as_=person, json={"status": "self_assessment"}).status == 200
    assert _alerts(api, person)["self_assessments"] == 1
    assert _alerts(api, person)["pending_reviews"] == 0


def test_a_managed_persons_own_review_is_the_managers_to_rate(api, db):
    """The one who rates a review whose reviewer is the reviewed person is a manager-level caller who sees it, and a
    submission of it is told to the person's manager (session 25): that manager's alerts count it, as for a reviewer
    who left; other managers' do not."""
    cycle = make_cycle(db)
    squad_manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=squad_manager.id)
    manager = make_user(db, access_level="manager")
    outsider = make_user(db, access_level="manager")
    person = make_user(db, manager_id=manager.id, squad_id=squad.id)
    create_review(api, person, cycle, person)
    counts = {user.name: _alerts(api, user)["pending_reviews"] for user in (manager, squad_manager, outsider, person)}
    assert counts == {manager.name: 1, squad_manager.name: 1, outsider.name: 0, person.name: 0}
    # a manager's own review stays theirs to write, not to rate, even within the squad they manage
    create_review(api, squad_manager, cycle, squad_manager)
    assert _alerts(api, squad_manager)["pending_reviews"] == 1
