"""A database error that reaches the logs (a deadlock, a lost connection: logged with its traceback by the endpoint
decorator) names the statement but never its parameter values: salaries, notes, encrypted credentials and password
hashes travel as parameters, and pg8000's are unnamed, so the log redaction could not tell them (audit S2)."""
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, StatementError

from chalicelib.core.db import make_engine

SECRET = "salary-184000-do-not-log"


def test_a_database_error_names_no_parameter_value(database_url):
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn, pytest.raises((DBAPIError, StatementError)) as failed:
            conn.execute(text("SELECT :v FROM no_such_table_here"), {"v": SECRET})
    finally:
        engine.dispose()
    assert SECRET not in str(failed.value)
    assert "no_such_table_here" in str(failed.value)  # the statement is still named
