"""Call the Chalice app as Lambda does: with a real API Gateway (REST, proxy) event and a context.

This is the production request path minus the network: Chalice's event handler resolves the
route from `requestContext.resourcePath`, builds the request, and our endpoint decorator runs.
Also: capture the SQL a request runs (SQLAlchemy's `before_cursor_execute`) and replay it through
the driver alone (pg8000's or psycopg's DB-API), the baseline of the overhead ratio; and the
primary-key floor (one primary-key lookup through the driver alone).
"""
from __future__ import annotations

import json
import re
import time
import uuid
from contextlib import contextmanager
from types import SimpleNamespace
from urllib.parse import urlencode

_PARAM = re.compile(r"{([^}+]+)\+?}")
_INSERT_INTO = re.compile(r'INSERT INTO ("?[\w.]+"?)\s', re.IGNORECASE)


def _values(value) -> list[str]:
    """The strings a parameter holds: itself, or the `id`s of the rows a JSON parameter carries (rows inserted
    through json_populate_recordset)."""
    if not isinstance(value, str):
        return []
    if value[:1] in "[{":
        try:
            rows = json.loads(value)
        except ValueError:
            return [value]
        rows = rows if isinstance(rows, list) else [rows]
        return [row["id"] for row in rows if isinstance(row, dict) and isinstance(row.get("id"), str)]
    return [value]


def lambda_context(name: str = "wms-bench") -> SimpleNamespace:
    return SimpleNamespace(
        function_name=name, function_version="$LATEST", memory_limit_in_mb=512,
        invoked_function_arn=f"arn:aws:lambda:ap-southeast-2:123456789012:function:{name}",
        aws_request_id=str(uuid.uuid4()), log_group_name=f"/aws/lambda/{name}", log_stream_name="bench",
        get_remaining_time_in_millis=lambda: 30000,
    )


def proxy_event(method: str, resource: str, params: dict | None = None, *, query: dict | None = None,
                body=None, token: str | None = None, headers: dict | None = None) -> dict:
    params = params or {}
    path = _PARAM.sub(lambda m: params[m.group(1)], resource)
    extra = headers
    headers = {"Host": "abc123.execute-api.ap-southeast-2.amazonaws.com", "Accept": "application/json",
               "User-Agent": "wms-bench", "X-Forwarded-Proto": "https", "X-Forwarded-Port": "443"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    headers.update(extra or {})
    raw_body = None
    if body is not None:
        raw_body = json.dumps(body)
        headers["Content-Type"] = "application/json"
    request_id = str(uuid.uuid4())
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": dict(query) if query else None,
        "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} if query else None,
        "pathParameters": dict(params) or None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": "abc123", "resourcePath": resource, "httpMethod": method, "path": f"/api{path}",
            "stage": "api", "requestId": request_id, "extendedRequestId": request_id,
            "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
            "requestTimeEpoch": int(time.time() * 1000), "protocol": "HTTP/1.1",
            "accountId": "123456789012", "apiId": "abc123", "domainName": "abc123.execute-api.ap-southeast-2.amazonaws.com",
            "identity": {"sourceIp": "127.0.0.1", "userAgent": "wms-bench"},
        },
        "body": raw_body,
        "isBase64Encoded": False,
    }


def invoke(app, event: dict) -> dict:
    return app(event, lambda_context())


def url_of(resource: str, params: dict | None, query: dict | None) -> str:
    path = _PARAM.sub(lambda m: (params or {})[m.group(1)], resource)
    return path + (f"?{urlencode(query)}" if query else "")


@contextmanager
def capture_sql(engine):
    """Collect (statement, parameters, executemany) of every cursor execution on `engine`."""
    from sqlalchemy import event

    statements: list[tuple[str, object, bool]] = []

    def before(conn, cursor, statement, parameters, context, executemany):
        statements.append((statement, parameters, executemany))

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", before)


def dbapi_connect(url: str, driver: str = "pg8000", lazy_begin: bool = True):
    """A bare DB-API connection of `driver` (pg8000 or psycopg) to the database of `url`. pg8000 is configured
    as the app configures it (core.pg8000_driver.pipeline_pg8000); `lazy_begin=False` keeps pg8000's BEGIN before the
    first statement of every transaction, which the app holds back until a write."""
    from sqlalchemy.engine import make_url

    u = make_url(url)
    if driver == "psycopg":
        import psycopg

        return psycopg.connect(user=u.username, password=u.password, host=u.host, port=u.port or 5432,
                               dbname=u.database, sslmode="disable", gssencmode="disable")
    import pg8000.dbapi

    from chalicelib.core.pg8000_driver import pipeline_pg8000

    connection = pg8000.dbapi.connect(user=u.username, password=u.password, host=u.host, port=u.port or 5432,
                                      database=u.database)
    pipeline_pg8000(connection, lazy_begin)  # the driver as the app configures it: not made slower than ours
    return connection


class PrimaryKeyFloor:
    """The least a request could cost the database: one primary-key lookup (`SELECT * FROM users WHERE id =
    %s`), its row fetched, its transaction committed, through the driver's DB-API alone. The transaction is the
    DB-API's by default (BEGIN before the statement, COMMIT after: three round trips on the pipelined pg8000),
    although the app's reads now open none (docs/decisions/infra.md): the report says so beside the figures."""

    def __init__(self, url: str, row_id: str, driver: str = "pg8000", transaction: bool = True) -> None:
        # transaction=False (pg8000): the lookup as the app's reads now run, no BEGIN and no COMMIT (one round trip)
        self.connection = dbapi_connect(url, driver, lazy_begin=not transaction)
        self.row_id = row_id

    def run(self) -> None:
        cursor = self.connection.cursor()
        cursor.execute("SELECT * FROM users WHERE id = %s", (self.row_id,))
        cursor.fetchall()
        self.connection.commit()

    def close(self) -> None:
        self.connection.close()


class DirectReplay:
    """The captured statements run through the driver's DB-API alone (pg8000 or psycopg, the driver that
    captured them: the parameter style differs): no ORM, no app, no JSON."""

    def __init__(self, url: str, driver: str = "pg8000") -> None:
        self.connection = dbapi_connect(url, driver)

    def run(self, statements, *, commit: bool) -> None:
        cursor = self.connection.cursor()
        for statement, parameters, many in statements:
            if many:
                cursor.executemany(statement, parameters)
            else:
                cursor.execute(statement, parameters)
            if cursor.description is not None:
                cursor.fetchall()
        if commit:
            self.connection.commit()
        else:
            self.connection.rollback()

    def delete_inserted(self, statements) -> int:
        """Delete the rows a captured create committed, so that replays (rolled back) can insert them: from each
        table a statement inserts into (a plain INSERT, or INSERTs chained as CTEs), the rows whose id is one of
        the statement's values or of the rows its JSON values carry (ids are UUIDs: no other value names a row of
        those tables)."""
        deletes = []
        for statement, parameters, many in statements:
            tables = [m.group(1).strip('"') for m in _INSERT_INTO.finditer(statement)]
            if not tables:
                continue
            batches = parameters if many else [parameters]
            values = set()
            for params in batches:
                items = params.values() if isinstance(params, dict) else params  # psycopg's named parameters
                values.update(found for v in items for found in _values(v))
            deletes += [(table, sorted(values)) for table in tables]
        cursor = self.connection.cursor()
        count = 0
        for table, values in reversed(deletes):
            for value in values:
                cursor.execute(f'DELETE FROM "{table}" WHERE id::text = %s', (value,))
                count += cursor.rowcount if cursor.rowcount and cursor.rowcount > 0 else 0
        self.connection.commit()
        return count

    def close(self) -> None:
        self.connection.close()
