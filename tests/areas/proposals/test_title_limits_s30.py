"""Session 30 (limits audit): a proposal's title holds 1 to 300 characters (trimmed), on create, update and duplicate.
A duplicate is the title + " (Copy)" (docs/decisions/proposals.md, Duplicate): the source's title is shortened so
that the copy's fits its 300 characters, as the tasks' and onboarding templates' duplicates do. A source of 294
characters or more lost the whole suffix: the copy was cut back to the source's title, so the two read the same."""
from tests.areas.proposals.factories import create

LONGEST = 300


def _title(api, user, pid) -> str:
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["title"]


def test_a_title_of_300_characters_is_taken_and_301_is_a_400_naming_it(api, exec_user):
    pid = create(api, exec_user, title="t" * LONGEST)
    assert _title(api, exec_user, pid) == "t" * LONGEST
    padded = create(api, exec_user, title=f"  {'s' * LONGEST}  ")  # counted once trimmed
    assert _title(api, exec_user, padded) == "s" * LONGEST
    for answer in (api.post("/api/proposals", as_=exec_user, json={"title": "t" * (LONGEST + 1)}),
                   api.put(f"/api/proposals/{pid}", as_=exec_user, json={"title": "u" * (LONGEST + 1)})):
        assert answer.status == 400, answer
        assert [d["field"] for d in answer.json["details"]] == ["title"]
    updated = api.put(f"/api/proposals/{pid}", as_=exec_user, json={"title": "u" * LONGEST})
    assert updated.status == 200, updated
    assert _title(api, exec_user, pid) == "u" * LONGEST


def test_the_duplicate_of_a_300_character_title_keeps_its_copy_suffix_within_300(api, exec_user):
    pid = create(api, exec_user, title="p" * LONGEST)
    answer = api.post(f"/api/proposals/{pid}/duplicate", as_=exec_user, json={})
    assert answer.status == 201, answer
    title = _title(api, exec_user, answer.json["proposal"]["id"])
    assert title == "p" * (LONGEST - len(" (Copy)")) + " (Copy)"
    assert len(title) == LONGEST


def test_the_duplicate_of_a_title_that_fits_with_its_suffix_is_not_cut(api, exec_user):
    fits = "q" * (LONGEST - len(" (Copy)"))
    pid = create(api, exec_user, title=fits)
    copy_id = api.post(f"/api/proposals/{pid}/duplicate", as_=exec_user, json={}).json["proposal"]["id"]
    assert _title(api, exec_user, copy_id) == fits + " (Copy)"
