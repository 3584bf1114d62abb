"""The SQLAlchemy models and the migrated schema agree (issue 9 item 7): columns, types,
nullability, foreign keys, unique constraints and indexes, compared by Alembic's autogenerate on
the database the suite migrated. A model changed without a migration (or the reverse) fails here."""
import importlib

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from chalicelib.areas import AREAS
from chalicelib.core.db import Base

# (kind of difference, table) pairs accepted on purpose, each with its reason. Keep it short.
ALLOWED: dict[tuple[str, str], str] = {}
# The same, on SQLite only.
SQLITE_ALLOWED: dict[tuple[str, str], str] = {
    ("modify_type", "sandbox_outbox"): "notifications_0003 widens subject and target to text on Postgres only: "
                                       "SQLite enforces no VARCHAR length (both are TEXT there)",
}


def _load_every_model() -> None:
    for module in ("chalicelib.core.models", "chalicelib.core.notify_models", "chalicelib.core.notify"):
        importlib.import_module(module)
    for area in AREAS:
        try:
            importlib.import_module(f"chalicelib.areas.{area}.models")
        except ModuleNotFoundError as exc:
            if exc.name != f"chalicelib.areas.{area}.models":
                raise


def _table_of(diff) -> str:
    for part in diff[1:]:
        table = getattr(part, "table", None)
        if table is not None and getattr(table, "name", None):
            return table.name
        if isinstance(part, str):
            return part
        name = getattr(part, "name", None)
        if isinstance(name, str) and hasattr(part, "columns"):
            return name
    return "?"


def _flatten(diffs):
    for diff in diffs:
        if isinstance(diff, list):  # column-level changes come grouped
            yield from diff
        else:
            yield diff


def schema_differences(engine, metadata=None) -> list:
    _load_every_model()
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diffs = compare_metadata(context, metadata if metadata is not None else Base.metadata)
    sqlite = engine.dialect.name == "sqlite"
    return [diff for diff in _flatten(diffs) if (diff[0], _table_of(diff)) not in ALLOWED
            and not (sqlite and (_only_a_length(diff) or (diff[0], _table_of(diff)) in SQLITE_ALLOWED))]


def _only_a_length(diff) -> bool:
    """A VARCHAR whose declared length alone differs: SQLite keeps the declaration and enforces no length, so a
    migration that widens a column (adplatforms_0003) runs on Postgres only."""
    if diff[0] != "modify_type":
        return False
    old, new = diff[-2], diff[-1]
    from sqlalchemy import String

    return isinstance(old, String) and isinstance(new, String) and type(old).__name__ in ("VARCHAR", "String") \
        and type(new).__name__ in ("VARCHAR", "String") and old.length != new.length


def test_models_and_migrations_agree(engine):
    differences = schema_differences(engine)
    assert differences == [], "models and migrations disagree:\n" + "\n".join(map(repr, differences))


def test_the_check_sees_a_drift(engine):
    """The comparison is not blind: a column only in the models is reported."""
    from sqlalchemy import Column, MetaData, String

    _load_every_model()
    copy = MetaData(naming_convention=Base.metadata.naming_convention)
    for table in Base.metadata.sorted_tables:
        table.to_metadata(copy)
    copy.tables["users"].append_column(Column("drift_probe", String(10)))
    differences = schema_differences(engine, copy)
    assert any(diff[0] == "add_column" and diff[3].name == "drift_probe" for diff in differences), differences



_FLUSH_PROBE = """
import importlib, sys
for module in sys.argv[1:]:
    importlib.import_module(module)
from chalicelib.core.db import Base
for mapper in Base.registry.mappers:
    mapper._sorted_tables  # what a flush of the class computes: it resolves the ForeignKeys it sorts on
"""


def _table_owners() -> dict[str, str]:
    """{table: area} for every area's mapped tables (by the module of the class); the core's tables are absent."""
    _load_every_model()
    owners = {}
    for mapper in Base.registry.mappers:
        parts = mapper.class_.__module__.split(".")
        if parts[:2] == ["chalicelib", "areas"]:
            owners.update({table.name: parts[2] for table in mapper.tables})
    return owners


def test_keys_to_other_areas_are_cross_area_keys():
    """A ForeignKey from an area's table to another area's table is made by core.db.cross_area_key."""
    owners = _table_owners()
    plain = [f"{table.name}.{key.parent.name} -> {key.target_fullname}"
             for table in Base.metadata.tables.values() if table.name in owners
             for key in table.foreign_keys
             if owners.get(key.target_fullname.split(".")[0], owners[table.name]) != owners[table.name]
             and not key.constraint.use_alter]
    assert plain == [], "use core.db.cross_area_key for these keys:\n" + "\n".join(plain)


def test_each_area_flushes_with_only_its_own_models():
    """An area's Lambda function has the core's models and its own loaded. A flush there must not need another
    area's models (it did: PUT /api/tasks/{id} answered 500 in the tasks function, NoReferencedTableError for
    tasks.sprint_id). Each area in a fresh interpreter, all at once."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    runs = {area: subprocess.Popen(
        [sys.executable, "-c", _FLUSH_PROBE, "chalicelib.core.models", "chalicelib.core.notify_models",
         f"chalicelib.areas.{area}.models"], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for area in AREAS if (root / "chalicelib" / "areas" / area / "models.py").exists()}
    failed = {}
    for area, run in runs.items():
        _, err = run.communicate(timeout=120)
        if run.returncode != 0:
            failed[area] = err.strip().splitlines()[-1]
    assert failed == {}, failed
