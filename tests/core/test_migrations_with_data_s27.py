"""Migrations over rows the code before them could write (session 27, docs/deploy.md "Migrations with data
present"): a table copied on SQLite keeps the rows referencing it, the code before agents_0003 still creates agent
runs, core_0002 upgrades over squads named alike but for case, budgets_0003 keeps a budget's total equal to its
lines, and the orphan clearing of the cross-area references stays one pass over a big referred table."""
import re
from decimal import Decimal

import pytest
from sqlalchemy import create_engine, event, exc, text
from sqlalchemy.engine import Engine

from chalicelib.migrations.runner import downgrade, upgrade
from tests.core.conftest import FreshDatabases

pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection")

USER = ("INSERT INTO users (id, email, name, access_level, is_active, created_at, updated_at) VALUES "
        "('u1', 'u1@example.com', 'U', 'employee', true, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
TASK = ("INSERT INTO tasks (id, title, is_private, created_at, updated_at) VALUES "
        "('t1', 'A task', false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")


def run(url: str, statements: list[str]) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for sql in statements:
                conn.execute(text(sql))
    finally:
        engine.dispose()


def rows(url: str, sql: str) -> list:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql)).all()
    finally:
        engine.dispose()


@pytest.fixture
def databases(database_url, tmp_path):
    made = FreshDatabases(database_url, tmp_path)
    yield made
    made.drop_all()


def fresh(databases, tmp_path, engine_kind: str) -> str:
    return databases.create() if engine_kind == "database" else f"sqlite:///{tmp_path / f'{engine_kind}.sqlite3'}"


@pytest.fixture
def pg(databases):
    url = databases.create()
    if not url.startswith("postgresql"):
        pytest.skip("Postgres only")
    return url


# 1. SQLite: batch_alter_table copies a table (DROP + rename); with foreign keys on, the DROP emptied its children

def test_deals_0002_on_sqlite_keeps_the_tasks_children(tmp_path):
    url = f"sqlite:///{tmp_path / 'deals2.sqlite3'}"
    upgrade(url)
    downgrade(url, "deals_0001")
    run(url, [USER, ("INSERT INTO tasks (id, title, is_private, created_at, updated_at) VALUES "
                     "('t1', 'Parent', false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
              ("INSERT INTO tasks (id, title, is_private, parent_task_id, created_at, updated_at) VALUES "
               "('t2', 'Sub', false, 't1', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
              ("INSERT INTO task_todos (id, task_id, title, is_done, position, created_at, updated_at) VALUES "
               "('d1', 't1', 'todo', false, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
              ("INSERT INTO task_watchers (id, task_id, user_id, created_at) VALUES "
               "('w1', 't1', 'u1', CURRENT_TIMESTAMP)")])
    upgrade(url)
    counts = {table: rows(url, f"SELECT count(*) FROM {table}")[0][0] for table in ("tasks", "task_todos",
                                                                                    "task_watchers")}
    assert counts == {"tasks": 2, "task_todos": 1, "task_watchers": 1}
    assert rows(url, "SELECT parent_task_id FROM tasks WHERE id = 't2'")[0][0] == "t1"


def test_agents_0003_on_sqlite_keeps_the_run_reports(tmp_path):
    url = f"sqlite:///{tmp_path / 'agents3.sqlite3'}"
    upgrade(url)
    downgrade(url, "agents_0002")
    run(url, [TASK, ("INSERT INTO agent_runs (id, task_id, stage, status, created_at, updated_at) VALUES "
                     "('r', 't1', 'building', 'running', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
              ("INSERT INTO agent_run_reports (id, run_id, stage, status, created_at) VALUES "
               "('rep', 'r', 'building', 'running', CURRENT_TIMESTAMP)")])
    upgrade(url)
    assert rows(url, "SELECT count(*) FROM agent_runs")[0][0] == 1
    assert rows(url, "SELECT count(*) FROM agent_run_reports")[0][0] == 1


def test_a_sqlite_migration_leaving_a_dangling_key_is_refused(tmp_path):
    """With the keys off during the migration, PRAGMA foreign_key_check before the commit is what still refuses
    a revision that leaves a row naming no row: the upgrade fails and nothing of it is kept."""
    url = f"sqlite:///{tmp_path / 'dangling.sqlite3'}"
    upgrade(url)
    downgrade(url, "agents_0002")
    run(url, [TASK, ("INSERT INTO agent_runs (id, task_id, stage, status, created_at, updated_at) VALUES "
                     "('r', 't1', 'building', 'running', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
              "PRAGMA foreign_keys=OFF",
              ("INSERT INTO agent_run_reports (id, run_id, stage, status, created_at) VALUES "
               "('rep', 'no-such-run', 'building', 'running', CURRENT_TIMESTAMP)")])
    with pytest.raises(Exception, match="foreign key"):
        upgrade(url, "agents_0003")
    assert rows(url, "SELECT version_num FROM alembic_version WHERE version_num LIKE 'agents%'") == [("agents_0002",)]


def test_the_app_engine_still_enforces_sqlite_foreign_keys_after_migrating(tmp_path):
    from chalicelib.core.db import make_engine

    url = f"sqlite:///{tmp_path / 'keys.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        engine.dispose()


# 2. agents_0003: the code before it (and after a rollback) inserts runs without last_report_at

@pytest.mark.parametrize("engine_kind", ["database", "sqlite"])
def test_the_code_before_agents_0003_still_creates_agent_runs(databases, tmp_path, engine_kind):
    url = fresh(databases, tmp_path, engine_kind)
    upgrade(url)
    run(url, [TASK])
    try:  # the columns AgentRun (agents_0002's model) inserted
        run(url, [("INSERT INTO agent_runs (id, task_id, project_id, stage, status, tokens, cost, created_by, "
                   "created_at, updated_at) VALUES ('r1', 't1', NULL, 'building', 'queued', 0, 0, NULL, "
                  "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")])
    except exc.IntegrityError as error:
        pytest.fail(f"the previous code's run insert refused: {str(error.orig)[:140]}")
    assert rows(url, "SELECT last_report_at FROM agent_runs WHERE id = 'r1'")[0][0] is not None


# 3. core_0002: squads the old code let share a name but for case

def test_core_0002_upgrades_over_squads_named_alike_but_for_case(pg):
    upgrade(pg)
    downgrade(pg, "core_0001")
    long_name = "x" * 200
    run(pg, ["INSERT INTO squads (id, name, created_at) VALUES ('s1', 'Design', '2026-01-01')",
             "INSERT INTO squads (id, name, created_at) VALUES ('s2', 'design', '2026-02-01')",
             "INSERT INTO squads (id, name, created_at) VALUES ('s3', 'DESIGN', '2026-03-01')",
             "INSERT INTO squads (id, name, created_at) VALUES ('s4', 'Ops', '2026-03-01')",
             f"INSERT INTO squads (id, name, created_at) VALUES ('s5', '{long_name}', '2026-01-01')",
             f"INSERT INTO squads (id, name, created_at) VALUES ('s6', '{long_name.upper()}', '2026-02-01')"])
    try:
        upgrade(pg)
    except exc.IntegrityError as error:
        pytest.fail(f"upgrade heads fails: {str(error.orig)[:160]}")
    names = dict(rows(pg, "SELECT id, name FROM squads"))
    assert names["s1"] == "Design" and names["s4"] == "Ops" and names["s5"] == long_name  # the oldest keep theirs
    assert names["s2"] == "design (s2)" and names["s3"] == "DESIGN (s3)"
    assert names["s6"].endswith(" (s6)") and len(names["s6"]) <= 200
    assert len({name.lower() for name in names.values()}) == 6


# 4. budgets_0003: a budget's total stays the sum of its (now rounded) lines

@pytest.mark.parametrize("engine_kind", ["database", "sqlite"])
def test_budgets_0003_keeps_a_proposal_budget_total_equal_to_its_lines(databases, tmp_path, engine_kind):
    url = fresh(databases, tmp_path, engine_kind)
    upgrade(url)
    downgrade(url, "budgets_0002")
    statements = []
    # b1, the old create_budget_for: three lines 0.50 x 2.01 = 1.005, total quantize(3.015) = 3.02
    # b2: a total a user set apart from its lines (not their rounded sum): left as it was
    for budget, total in (("b1", "3.02"), ("b2", "7.00")):
        statements.append("INSERT INTO budgets (id, name, resource_type, resource_id, currency, status, total_amount,"
                          f" created_at, updated_at) VALUES ('{budget}', 'Budget', 'project', 'p1', 'AUD', 'draft', "
                          f"{total}, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
        for n in range(3):
            statements.append("INSERT INTO budget_line_items (id, budget_id, description, quantity, unit_price, "
                              f"amount, position, created_at, updated_at) VALUES ('{budget}-{n}', '{budget}', 'x', "
                              f"0.50, 2.01, 1.005, {n}, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
    run(url, statements)
    upgrade(url)
    lines = sum(Decimal(str(row[0])) for row in rows(url, "SELECT amount FROM budget_line_items "
                                                         "WHERE budget_id = 'b1'"))
    totals = {budget: Decimal(str(total)).quantize(Decimal("0.01"))
              for budget, total in rows(url, "SELECT id, total_amount FROM budgets")}
    assert lines.quantize(Decimal("0.01")) == Decimal("3.03")
    assert totals == {"b1": Decimal("3.03"), "b2": Decimal("7.00")}


# 5. references.add_set_null_reference: the orphan clearing must not become a per-row subplan

def test_orphan_clearing_is_an_anti_join_when_the_referred_ids_pass_work_mem(pg):
    """deals_0002 (like sprints_0002, sla_0002, onboarding_0002) clears the ids naming no row before it adds the
    key. `NOT IN (SELECT id ...)` is hashed only while the referred ids fit work_mem; past it Postgres scans them
    once per referring row (65 s at 300k contacts). Here a small table with work_mem at its minimum (64kB) stands
    for the big one: the statement the migration runs must plan without a plain (non-hashed) SubPlan."""
    upgrade(pg)
    downgrade(pg, "deals_0001")
    run(pg, [("INSERT INTO contacts (id, first_name, created_at, updated_at) SELECT md5(g::text)::uuid::text, 'c', "
              "now(), now() FROM generate_series(1, 5000) g"),
             ("INSERT INTO tasks (id, title, is_private, reported_by_contact_id, created_at, updated_at) SELECT "
              "md5((-g)::text)::uuid::text, 't', false, md5((1 + g % 50)::text)::uuid::text, now(), now() "
             "FROM generate_series(1, 200) g"),
             "ANALYZE contacts", "ANALYZE tasks"])
    seen: list[str] = []

    def capture(_conn, _cursor, statement, _parameters, _context, _many):
        if statement.lstrip().upper().startswith("UPDATE TASKS SET REPORTED_BY_CONTACT_ID = NULL"):
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", capture)
    try:
        upgrade(pg, "deals_0002")
    finally:
        event.remove(Engine, "before_cursor_execute", capture)
    assert len(seen) == 1, seen
    engine = create_engine(pg)
    try:
        with engine.begin() as conn:
            conn.execute(text("SET LOCAL work_mem = '64kB'"))
            conn.execute(text("SET LOCAL hash_mem_multiplier = 1"))
            plan = "\n".join(row[0] for row in conn.execute(text("EXPLAIN " + seen[0])))
    finally:
        engine.dispose()
    assert not re.search(r"(?<!hashed )SubPlan", plan), plan
    assert rows(pg, "SELECT count(*) FROM tasks WHERE reported_by_contact_id IS NOT NULL")[0][0] == 200
