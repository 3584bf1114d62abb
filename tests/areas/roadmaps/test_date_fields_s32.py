"""Session 32, audit "error bodies that name the wrong field": a roadmap's or an item's dates that end before they
start are a 400 whose detail names the date the request sent, as the core names a field (decisions.md section 4):
`end_date` when the request gives it (a create's range was checked by a model validator, whose detail named `body`),
`start_date` when an update moves only the start past the stored end (it named `end_date`, a field not sent)."""


def _fields(answer):
    """(field, message) of each detail; a schema's message carries pydantic's "Value error, " before it."""
    return [(d["field"], d["message"].removeprefix("Value error, ")) for d in answer.json["details"]]


def test_a_backwards_range_names_end_date_on_create(api, db, exec_user):
    made = api.post("/api/roadmaps", as_=exec_user,
                    json={"name": "R", "start_date": "2026-02-02", "end_date": "2026-02-01"})
    assert made.status == 400 and _fields(made) == [("end_date", "must not be before start_date")], made.json
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "R"}).json["roadmap"]
    item = api.post(f"/api/roadmaps/{roadmap['id']}/items", as_=exec_user,
                    json={"title": "x", "start_date": "2026-02-02", "end_date": "2026-02-01"})
    assert item.status == 400 and _fields(item) == [("end_date", "must not be before start_date")], item.json


def test_an_update_names_the_date_it_sent(api, db, exec_user):
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={
        "name": "R", "start_date": "2026-02-01", "end_date": "2026-02-28"}).json["roadmap"]
    path = f"/api/roadmaps/{roadmap['id']}"
    late = api.put(path, as_=exec_user, json={"start_date": "2026-03-01"})
    assert late.status == 400 and _fields(late) == [("start_date", "must not be after end_date")], late.json
    early = api.put(path, as_=exec_user, json={"end_date": "2026-01-01"})
    assert early.status == 400 and _fields(early) == [("end_date", "must not be before start_date")], early.json
    both = api.put(path, as_=exec_user, json={"start_date": "2026-02-02", "end_date": "2026-02-01"})
    assert both.status == 400 and _fields(both) == [("end_date", "must not be before start_date")], both.json
    item = api.post(f"{path}/items", as_=exec_user, json={
        "title": "x", "start_date": "2026-02-01", "end_date": "2026-02-10"}).json["item"]
    moved = api.put(f"{path}/items/{item['id']}", as_=exec_user, json={"start_date": "2026-02-11"})
    assert moved.status == 400 and _fields(moved) == [("start_date", "must not be after end_date")], moved.json
    cut = api.put(f"{path}/items/{item['id']}", as_=exec_user, json={"end_date": "2026-01-31"})
    assert cut.status == 400 and _fields(cut) == [("end_date", "must not be before start_date")], cut.json
