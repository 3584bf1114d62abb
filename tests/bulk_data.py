"""Many rows fast, on Postgres: INSERT ... SELECT generate_series (the query-plan test and the scaling bench).

Rows reference the given users and config items in turn; every 10th task is a subtask of an earlier one,
every 5th task has two todos (one done), every 4th project has two members. Dates and sort orders vary so
that sorts and filters have something to do. Returns the number of rows inserted.
"""
from __future__ import annotations

from sqlalchemy import text


def _pick(values: list, index_sql: str) -> str:
    """SQL choosing one of `values` (bound as an array) by `index_sql`; NULL when there are none."""
    if not values:
        return "NULL"
    return f"(CAST(:{{name}} AS varchar[]))[1 + mod({index_sql}, {len(values)})]"


def insert_tasks(conn, n: int, *, user_ids: list[str], status_ids: list[str], priority_ids: list[str],
                 prefix: str = "bulk") -> int:
    """`n` tasks titled '<prefix> task <i>' (ids '<prefix>-t-<i>'), their todos and subtasks."""
    params = {"n": n, "prefix": prefix, "users": list(user_ids), "statuses": list(status_ids),
              "priorities": list(priority_ids)}
    user = _pick(user_ids, "i").format(name="users")
    reporter = _pick(user_ids, "i / 7").format(name="users")
    status = _pick(status_ids, "i").format(name="statuses")
    priority = _pick(priority_ids, "i / 3").format(name="priorities")
    conn.execute(text(f"""
        INSERT INTO tasks (id, title, description, status_id, priority_id, assignee_id, reporter_id, created_by,
                           parent_task_id, due_date, sort_order, is_private, created_at, updated_at)
        SELECT :prefix || '-t-' || i, :prefix || ' task ' || i, 'Bulk description ' || md5(i::text),
               {status}, {priority}, {user}, {reporter}, {reporter},
               CASE WHEN mod(i, 10) = 0 THEN :prefix || '-t-' || (i - 1) END,
               CASE WHEN mod(i, 3) = 0 THEN NULL ELSE DATE '2026-01-01' + mod(i, 400) END,
               CASE WHEN mod(i, 4) = 0 THEN mod(i, 1000)::float END, false,
               TIMESTAMP '2026-01-01' + i * INTERVAL '1 minute', TIMESTAMP '2026-01-01' + i * INTERVAL '1 minute'
        FROM generate_series(1, :n) AS i
    """), params)
    conn.execute(text("""
        INSERT INTO task_todos (id, task_id, title, is_done, position, created_at, updated_at)
        SELECT :prefix || '-d-' || i || '-' || k, :prefix || '-t-' || i, 'Todo ' || k, k = 1, k, now(), now()
        FROM generate_series(5, :n, 5) AS i, generate_series(1, 2) AS k
    """), {"n": n, "prefix": prefix})
    return n


def insert_projects(conn, n: int, *, user_ids: list[str], prefix: str = "bulk") -> int:
    """`n` projects named '<prefix> project <i>' (ids '<prefix>-p-<i>') owned by the users in turn."""
    params = {"n": n, "prefix": prefix, "users": list(user_ids)}
    owner = _pick(user_ids, "i").format(name="users")
    manager = _pick(user_ids, "i + 1").format(name="users")
    conn.execute(text(f"""
        INSERT INTO projects (id, name, description, status, owner_id, delivery_manager_id, created_at, updated_at)
        SELECT :prefix || '-p-' || i, :prefix || ' project ' || i, 'Bulk project ' || md5(i::text),
               CASE WHEN mod(i, 5) = 0 THEN 'completed' ELSE 'active' END, {owner}, {manager},
               TIMESTAMP '2026-01-01' + i * INTERVAL '1 minute', TIMESTAMP '2026-01-01' + i * INTERVAL '1 minute'
        FROM generate_series(1, :n) AS i
    """), params)
    if user_ids:
        member = _pick(user_ids, "i + k + 1").format(name="users")
        conn.execute(text(f"""
            INSERT INTO project_members (id, project_id, user_id, role, created_at)
            SELECT :prefix || '-m-' || i || '-' || k, :prefix || '-p-' || i, {member}, 'member', now()
            FROM generate_series(4, :n, 4) AS i, generate_series(1, 2) AS k
            ON CONFLICT DO NOTHING
        """), params)
    return n


def analyze(conn, *tables: str) -> None:
    for table in tables:
        conn.execute(text(f"ANALYZE {table}"))
