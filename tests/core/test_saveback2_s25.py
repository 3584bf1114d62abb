"""Save-back audit, part 2 (session 25): a task's to-dos and a page comment sent back as read are no edit. The to-dos
replace moved every to-do's `updated_at`; the comment was marked edited (pages:manage holders marked other people's
comments so by a save-back)."""
from datetime import timedelta

from sqlalchemy import text

from chalicelib.core.ids import utcnow
from tests.factories import make_user


def _age(db, table: str, row_id: str) -> None:
    db.execute(text(f"UPDATE {table} SET updated_at = :aged WHERE id = :id"), {"aged": utcnow() - timedelta(days=1), "id": row_id})
    db.commit()


def test_todos_sent_back_keep_their_time_and_a_changed_one_moves(api, db, exec_user):
    task_id = api.post("/api/tasks", as_=exec_user, json={"title": "T"}).json["task"]["id"]
    first = api.put(f"/api/tasks/{task_id}/todos", as_=exec_user, json={"todos": [{"title": "a"}, {"title": "b"}]})
    assert first.status == 200, first.json
    db.execute(text("UPDATE task_todos SET updated_at = :aged WHERE task_id = :id"),
               {"aged": utcnow() - timedelta(days=1), "id": task_id})
    db.commit()
    todos = api.get(f"/api/tasks/{task_id}", as_=exec_user).json["todos"]
    same = api.put(f"/api/tasks/{task_id}/todos", as_=exec_user, json={"todos": todos})
    assert same.status == 200, same.json
    assert [(t["id"], t["updated_at"]) for t in same.json["todos"]] == [(t["id"], t["updated_at"]) for t in todos]
    edited = api.put(f"/api/tasks/{task_id}/todos", as_=exec_user,
                     json={"todos": [{**todos[0], "is_done": 1}, todos[1]]})
    after = {t["id"]: t["updated_at"] for t in edited.json["todos"]}
    assert after[todos[0]["id"]] > todos[0]["updated_at"] and after[todos[1]["id"]] == todos[1]["updated_at"]


def test_a_comment_sent_back_is_not_marked_edited(api, db):
    from tests.areas.pages.factories import make_comment, make_discussion, make_page

    author = make_user(db)
    page = make_page(db)
    discussion = make_discussion(db, page, author)
    comment = make_comment(db, discussion, author, content_rich='[{"text":"x"}]')
    _age(db, "page_comments", comment.id)
    listed = api.get(f"/api/pages/{page.id}/discussions", as_=author).json["discussions"][0]["comments"][0]
    path = f"/api/pages/{page.id}/discussions/{discussion.id}/comments/{comment.id}"
    assert api.patch(path, as_=author, json=listed).status == 200
    after = api.get(f"/api/pages/{page.id}/discussions", as_=author).json["discussions"][0]["comments"][0]
    assert (after["is_edited"], after["updated_at"]) == (listed["is_edited"], listed["updated_at"])
    assert api.patch(path, as_=author, json={**listed, "content": "changed"}).status == 200
    changed = api.get(f"/api/pages/{page.id}/discussions", as_=author).json["discussions"][0]["comments"][0]
    assert changed["is_edited"] == 1 and changed["content"] == "changed"
