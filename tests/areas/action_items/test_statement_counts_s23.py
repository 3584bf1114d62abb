"""Session 23: the caller's preferences (GET /api/action-items/preferences) cost the same, stated number of
statements at 5 and at 100 rows (docs/area-contract.md, "Reads"); the list and the centre are tested in
test_action_items.py and test_centre.py."""

from chalicelib.areas.action_items.models import ActionItemPreference
from tests.factories import exact_statements, make_user

# the caller, the rows
PREFERENCES_STATEMENTS = 2



def test_preferences(api, db, exec_user, count_queries):
    other = make_user(db)
    made = []

    def grow(n):
        start = len(made)
        made.extend(f"m{start + i + 1:03d}" for i in range(n))
        db.add_all([ActionItemPreference(user_id=user.id, source_module=module, show_in_feed=False)
                    for module in made[start:] for user in (exec_user, other)])
        db.flush()

    body = exact_statements(count_queries, lambda: api.get("/api/action-items/preferences", as_=exec_user), grow,
                            lambda b: len(b["preferences"]), (5, 100), PREFERENCES_STATEMENTS)
    assert [p["source_module"] for p in body["preferences"]] == made  # the caller's only, by module
    assert all((p["show_in_feed"], p["is_visible"]) == (0, 1) for p in body["preferences"])  # flags as 0/1
