"""Session 30 (limits audit): the meetings list's page at its boundary (document 3, Limits: "Meetings page: default
20, maximum 50"): 20 rows without `per_page`, exactly 50 with `per_page=50`, and `per_page=51` a 400 naming it."""
from tests.areas.meetings.factories import make_meeting


def test_the_page_holds_20_by_default_50_at_most_and_51_is_refused(api, db, exec_user):
    for _ in range(51):
        make_meeting(db)
    default = api.get("/api/meetings", as_=exec_user).json
    assert (len(default["meetings"]), default["per_page"], default["total"]) == (20, 20, 51)
    widest = api.get("/api/meetings?per_page=50", as_=exec_user)
    assert widest.status == 200, widest
    assert (len(widest.json["meetings"]), widest.json["per_page"], widest.json["total"]) == (50, 50, 51)
    refused = api.get("/api/meetings?per_page=51", as_=exec_user)
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["per_page"]
