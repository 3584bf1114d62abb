"""The SQLAlchemy models and the migrated schema agree (issue 9 item 7): columns, types,
nullability, foreign keys, unique constraints and indexes, compared by Alembic's autogenerate on
the database the suite migrated. A model changed without a migration (or the reverse) fails here."""
import importlib

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from chalicelib.areas import AREAS
from chalicelib.core.db import Base

# (kind of difference, table) pairs accepted on purpose, each with its reason. Keep it short.
_LATER_KEY = ("a later area's foreign key into this table, created by that area's migration and kept out of the "
              "model: a flush resolves every ForeignKey of the table, so the model's function would need the later "
              "area's models loaded (tests/core/test_schema_drift.py::test_a_flush_needs_no_later_area)")
ALLOWED: dict[tuple[str, str], str] = {
    ("remove_fk", "projects"): _LATER_KEY,         # sla_policy_id -> sla_policies (sla_0002)
    ("remove_fk", "client_profiles"): _LATER_KEY,  # onboarding_template_id -> onboarding_templates (onboarding_0002)
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
    return [diff for diff in _flatten(diffs) if (diff[0], _table_of(diff)) not in ALLOWED]


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
    mapper._sorted_tables  # what a flush of the class computes: it resolves every ForeignKey of its table
"""


def test_a_flush_needs_no_later_area():
    """The projects and clients functions flush their rows with only their own area's models and those of the
    areas they build on (deals) loaded: the keys that the SLA and onboarding areas added to their tables live in
    the migrations only (a ForeignKey to sla_policies declared on the model fails here)."""
    import subprocess
    import sys
    from pathlib import Path

    modules = ["chalicelib.core.models", "chalicelib.core.notify_models", "chalicelib.areas.deals.models",
               "chalicelib.areas.projects.models", "chalicelib.areas.clients.models"]
    run = subprocess.run([sys.executable, "-c", _FLUSH_PROBE, *modules], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
