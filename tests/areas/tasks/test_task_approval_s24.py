"""An approval's time follows its approver (session 24, reversals audit).

docs/decisions/tasks.md ("An approval is one's own"): nobody records an approval time without an approver, and a
withdrawal is both (`approved_by_user_id`, `approved_at`) null together. Clearing the approver alone left the time
set with no approver, and a second user approving (approver = themselves, no time sent) kept the first approver's
time. When the approver really changes and no (changed) `approved_at` is sent, the time follows: null when the
approver is cleared, now when one is set; on a create, an approver without `approved_at` is dated now. A time sent
explicitly is still taken as sent, under the existing rules (only the approver after the write sets or moves it)."""
from datetime import datetime, timezone

from tests.areas.tasks.factories import make_task
from tests.factories import make_user

FIRST = "2026-01-02T03:04:05Z"


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _approved(api, user, task) -> dict:
    answer = api.put(f"/api/tasks/{task.id}", as_=user, json={"approved_by_user_id": user.id, "approved_at": FIRST})
    assert answer.status == 200, answer
    return answer.json["task"]


def test_clearing_the_approver_alone_withdraws_the_time_too(api, db, exec_user):
    other = make_user(db, access_level="executive", name="Other Exec")
    task = make_task(db)
    _approved(api, exec_user, task)
    withdrawn = api.put(f"/api/tasks/{task.id}", as_=other, json={"approved_by_user_id": None})
    assert withdrawn.status == 200, withdrawn
    assert (withdrawn.json["task"]["approved_by_user_id"], withdrawn.json["task"]["approved_at"]) == (None, None)
    read = api.get(f"/api/tasks/{task.id}", as_=other).json["task"]
    assert (read["approved_by_user_id"], read["approved_at"]) == (None, None)


def test_clearing_the_approver_in_a_record_sent_back_withdraws_the_time_too(api, db, exec_user):
    """A client PUTs the record it read with the approver cleared: the stored time sent back unchanged is not a
    time of its own (a value sent back as stored is not a change), so it follows the approver out."""
    task = make_task(db)
    stored = _approved(api, exec_user, task)["approved_at"]
    withdrawn = api.put(f"/api/tasks/{task.id}", as_=exec_user,
                        json={"title": "Renamed", "approved_by_user_id": None, "approved_at": stored})
    assert withdrawn.status == 200, withdrawn
    assert (withdrawn.json["task"]["approved_by_user_id"], withdrawn.json["task"]["approved_at"]) == (None, None)


def test_a_second_approver_is_dated_at_their_own_approval(api, db, exec_user):
    other = make_user(db, access_level="executive", name="Other Exec")
    task = make_task(db)
    stored = _approved(api, exec_user, task)["approved_at"]
    before = _now()
    taken = api.put(f"/api/tasks/{task.id}", as_=other, json={"approved_by_user_id": other.id})
    after = _now()
    assert taken.status == 200, taken
    body = taken.json["task"]
    assert body["approved_by_name"] == "Other Exec"
    assert body["approved_at"] != stored and before <= _when(body["approved_at"]) <= after, body["approved_at"]
    # the record sent back with the first approver's time and the new approver: the time is still their own
    third = make_user(db, access_level="executive", name="Third Exec")
    again = api.put(f"/api/tasks/{task.id}", as_=third,
                    json={"approved_by_user_id": third.id, "approved_at": body["approved_at"]})
    assert again.status == 200, again
    assert _when(again.json["task"]["approved_at"]) >= after, again.json["task"]["approved_at"]


def test_a_first_approval_without_a_time_is_dated_now(api, db, exec_user):
    task = make_task(db)
    before = _now()
    answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"approved_by_user_id": exec_user.id})
    assert answer.status == 200, answer
    assert answer.json["task"]["approved_at"] is not None
    assert before <= _when(answer.json["task"]["approved_at"]) <= _now()


def test_a_create_with_an_approver_and_no_time_is_dated_now(api, db, exec_user):
    before = _now()
    created = api.post("/api/tasks", as_=exec_user, json={"title": "Approved", "approved_by_user_id": exec_user.id})
    assert created.status == 201, created
    body = created.json["task"]
    assert body["approved_by_user_id"] == exec_user.id and body["approved_at"] is not None, body
    assert before <= _when(body["approved_at"]) <= _now()
    # no approver: no time
    plain = api.post("/api/tasks", as_=exec_user, json={"title": "Plain"})
    assert plain.status == 201 and plain.json["task"]["approved_at"] is None, plain


def test_a_time_sent_explicitly_is_kept_and_an_unchanged_approver_keeps_its_time(api, db, exec_user):
    other = make_user(db, access_level="executive", name="Other Exec")
    task = make_task(db)
    path = f"/api/tasks/{task.id}"
    stored = _approved(api, exec_user, task)["approved_at"]
    assert _when(stored) == _when(FIRST)
    # the stored approver sent back, without a time: nothing about the approval changes
    same = api.put(path, as_=other, json={"title": "Renamed", "approved_by_user_id": exec_user.id})
    assert same.status == 200 and same.json["task"]["approved_at"] == stored, same
    # a new approver with a time of their own: that time
    taken = api.put(path, as_=other, json={"approved_by_user_id": other.id, "approved_at": "2026-03-04T05:06:07Z"})
    assert taken.status == 200 and _when(taken.json["task"]["approved_at"]) == _when("2026-03-04T05:06:07Z"), taken
    # the existing rules stand: a time alone by someone who is not the approver, a time with no approver
    assert api.put(path, as_=exec_user, json={"approved_at": "2026-05-01T00:00:00Z"}).status == 403
    assert api.put(path, as_=exec_user, json={"approved_by_user_id": None,
                                              "approved_at": "2026-05-01T00:00:00Z"}).status == 403
    assert api.post("/api/tasks", as_=exec_user, json={"title": "Forged", "approved_by_user_id": other.id}).status == 403
    # the whole approval withdrawn explicitly, as before
    cleared = api.put(path, as_=exec_user, json={"approved_by_user_id": None, "approved_at": None})
    assert cleared.status == 200, cleared
    assert (cleared.json["task"]["approved_by_user_id"], cleared.json["task"]["approved_at"]) == (None, None)
