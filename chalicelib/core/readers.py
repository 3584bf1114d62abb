"""Who of some users may read a record, asked as each of them in a fixed number of statements: for a side effect
that must reach only the record's readers (a note's text to the users it mentions, a notice that names a task, a
page, a project or an invoice). `seen_by` asks the area's scope clause as each principal; `readers` and
`rows_readers` start from user ids (active users, the tool's view permission, then the scope)."""
from sqlalchemy import String, literal, select, union_all

from .query import in_scope


def seen_by(db, model, row_id: str, principals, scope_of) -> set[str]:
    """Which of these principals see the `model` row with this id: `scope_of(principal)` (the area's scope clause,
    None for everything) asked as each of them, in one statement (a UNION ALL) whatever their number; none for no
    principals. For a side effect that must reach only readers (a note's text to the users it mentions)."""
    asked = [in_scope(select(literal(p.id, String)).where(model.id == row_id), scope_of(p)) for p in principals]
    if not asked:
        return set()
    return set(db.scalars(asked[0] if len(asked) == 1 else union_all(*asked)))


def readers(db, model, row_id: str, user_ids, *, tool: str, scope_of) -> set[str]:
    """Which of these users may read the `model` row: `rows_readers` for one row. For a notice that names the row
    only to its readers (a task's status change, a page's comment, a project's status)."""
    return rows_readers(db, model, {row_id: set(user_ids)}, tool=tool, scope_of=scope_of)[row_id]


def rows_readers(db, model, wanted: dict, *, tool: str, scope_of) -> dict[str, set[str]]:
    """`{row_id: the users of wanted[row_id] who may read that `model` row}`, asked as each of them: active,
    `<tool>:view`, and the row inside their scope (`scope_of(principal)`, the area's scope clause). The users'
    principals in one statement (core.auth.principals_of), then one UNION ALL of each scoped user's rows among
    theirs, none when every scope is None (all rows): two statements at most whatever the number of rows and users
    (a job's notices about many invoices)."""
    from chalicelib.core.auth import principals_of

    found: dict[str, set[str]] = {row_id: set() for row_id in wanted}
    asked = []
    users = sorted({user_id for ids in wanted.values() for user_id in ids if user_id})
    for user_id, principal in principals_of(db, users).items():
        if not principal.can(tool, "view"):
            continue
        theirs = sorted(row_id for row_id, ids in wanted.items() if user_id in ids)
        scope = scope_of(principal)
        if scope is None:
            for row_id in theirs:
                found[row_id].add(user_id)
        else:
            asked.append(in_scope(select(literal(user_id, String).label("user_id"), model.id.label("row_id"))
                                  .where(model.id.in_(theirs)), scope))
    if asked:
        for user_id, row_id in db.execute(asked[0] if len(asked) == 1 else union_all(*asked)):
            found[row_id].add(user_id)
    return found
