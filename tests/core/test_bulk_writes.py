"""Writes that take a list cost a fixed number of statements, whatever the list's length (issue 11
item 4): 10 rows and 100 rows cost the same. Statements are counted on the engine
(`before_cursor_execute`, the `count_queries` fixture); an `executemany` would count once but is one
round trip per row on pg8000, so the services write multi-row statements, and this is checked too.
Notifying many users is one INSERT of notifications and one of deliveries, and the queue gets SQS
batches of ten (with the queue configured, as deployed)."""
from __future__ import annotations

import json
import math

import pytest
from chalice import Chalice
from sqlalchemy import func, select

from chalicelib.core import http
from chalicelib.core.notify import Notification, notify_squad
from chalicelib.core.notify_catalogue import DELIVERY_CHANNELS, type_info
from chalicelib.core.notify_models import NotificationDelivery
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.config_lists.factories import make_item, make_list
from tests.areas.tasks.factories import make_task
from tests.factories import make_squad, make_user, served

SIZES = (10, 100)
# deliveries per user of todo_assigned by default (the catalogue's channels other than in-app)
CHANNELS = sum(1 for channel in DELIVERY_CHANNELS if type_info("todo_assigned").defaults()[channel])


@pytest.fixture
def counted(count_queries):
    """`counted(call)`: (statement count, executemany statements) of one call."""
    from sqlalchemy import event

    def run(call):
        many = []

        def before(conn, cursor, statement, parameters, context, executemany):
            if executemany:
                many.append(statement)

        from chalicelib.core.db import get_engine

        event.listen(get_engine(), "before_cursor_execute", before)
        try:
            with count_queries() as counter:
                answer = call()
        finally:
            event.remove(get_engine(), "before_cursor_execute", before)
        return counter.count, many, answer

    return run


@pytest.fixture
def sqs_calls(aws):
    """Names of the SQS operations the app calls (botocore events on the app's own client)."""
    from chalicelib.core.aws import client

    calls: list[str] = []
    client("sqs").meta.events.register("before-call.sqs", lambda model, **_: calls.append(model.name))
    return calls


def test_todo_replacement_and_its_notifications_are_bulk(api, db, exec_user, counted, sqs_calls):
    counts = {}
    for size in SIZES:
        task = make_task(db, created_by=exec_user.id)
        assignees = [make_user(db) for _ in range(size)]
        todos = [{"title": f"Todo {n}", "assignee_id": user.id} for n, user in enumerate(assignees)]
        sqs_calls.clear()
        count, many, response = counted(lambda: api.put(f"/api/tasks/{task.id}/todos", as_=exec_user,
                                                        json={"todos": todos}))
        assert response.status == 200 and len(response.json["todos"]) == size
        assert not many, many
        counts[size] = count
        notified = db.scalar(select(func.count()).select_from(Notification).where(
            Notification.resource_id == task.id, Notification.type == "todo_assigned"))
        queued = db.scalar(select(func.count()).select_from(NotificationDelivery).join(
            Notification, Notification.id == NotificationDelivery.notification_id).where(Notification.resource_id == task.id))
        assert CHANNELS and notified == size and queued == size * CHANNELS
        assert sqs_calls == ["SendMessageBatch"] * math.ceil(queued / 10)
        # a second replacement renaming every todo (ids kept) is as cheap
        renamed = [{"id": t["id"], "title": t["title"] + "!", "assignee_id": t["assignee_id"]}
                   for t in response.json["todos"]]
        count, many, again = counted(lambda: api.put(f"/api/tasks/{task.id}/todos", as_=exec_user,
                                                     json={"todos": renamed}))
        assert again.status == 200 and [t["id"] for t in again.json["todos"]] == [t["id"] for t in renamed]
        assert not many, many
        counts[f"rename {size}"] = count
    assert counts[10] == counts[100], counts
    assert counts["rename 10"] == counts["rename 100"], counts


def test_task_resource_reorder_is_one_statement_for_any_length(api, db, exec_user, counted):
    from chalicelib.areas.tasks.models import TaskResource

    counts = {}
    for size in SIZES:
        task = make_task(db, created_by=exec_user.id)
        ids = []
        for n in range(size):
            resource = TaskResource(task_id=task.id, type="link", url=f"https://e.test/{n}", title=f"L{n}",
                                    sort_order=n)
            db.add(resource)
            db.flush()
            ids.append(resource.id)
        order = list(reversed(ids))
        count, many, response = counted(lambda: api.put(f"/api/tasks/{task.id}/resources/reorder", as_=exec_user,
                                                        json={"order": order}))
        assert response.status == 200, response
        assert not many, many
        counts[size] = count
        listed = api.get(f"/api/tasks/{task.id}/resources", as_=exec_user).json["resources"]
        assert [(r["id"], r["sort_order"]) for r in listed] == [(rid, n) for n, rid in enumerate(order)]
    assert counts[10] == counts[100], counts


def test_budget_line_item_reorder_is_one_statement_for_any_length(api, db, exec_user, counted):
    counts = {}
    for size in SIZES:
        budget = make_budget(db)
        order = [make_line_item(db, budget, position=n).id for n in range(size)][::-1]
        count, many, response = counted(lambda: api.put(f"/api/budgets/{budget.id}/line-items/reorder",
                                                        as_=exec_user, json={"item_ids": order}))
        assert response.status == 200, response
        assert not many, many
        counts[size] = count
        items = api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]
        assert [(i["id"], i["position"]) for i in items] == [(iid, n) for n, iid in enumerate(order)]
    assert counts[10] == counts[100], counts


def test_config_list_reorder_is_one_statement_for_any_length(api, db, exec_user, counted):
    counts = {}
    for size in SIZES:
        config_list = make_list(db)
        order = [make_item(db, config_list, position=n).id for n in range(size)][::-1]
        count, many, response = counted(lambda: api.put(f"/api/config-lists/{config_list.key}/reorder",
                                                        as_=exec_user, json={"item_ids": order}))
        assert response.status == 200, response
        assert not many, many
        counts[size] = count
        items = api.get(f"/api/config-lists/{config_list.key}/items", as_=exec_user).json["items"]
        assert [(i["id"], i["position"]) for i in items] == [(iid, n) for n, iid in enumerate(order)]
    assert counts[10] == counts[100], counts


@pytest.fixture
def squad_api(app):
    """POST /notify-squad: notify_squad() through a request transaction (no area route calls it yet)."""
    test_app = Chalice(app_name="notify-squad-test")

    @test_app.route("/notify-squad", methods=["POST"])
    @http.endpoint(auth="public")
    def create(ctx):
        return notify_squad(ctx, **json.loads(ctx.request.raw_body))

    with served(test_app) as call:
        yield lambda **payload: call("POST", "/notify-squad", payload)[:2]


def test_notify_squad_is_one_insert_and_sqs_batches_of_ten(db, squad_api, counted, sqs_calls):
    counts = {}
    for size in SIZES:
        squad = make_squad(db)
        members = [make_user(db, squad_id=squad.id, access_level="employee") for _ in range(size)]
        sqs_calls.clear()
        count, many, (status, body) = counted(lambda: squad_api(
            squad_id=squad.id, audience="squad", type="todo_assigned", title="Hello squad", resource_type="squad",
            resource_id=squad.id))
        assert status == 200 and sorted(body["notified"]) == sorted(m.id for m in members), body
        assert not many, many
        counts[size] = count
        queued = db.scalar(select(func.count()).select_from(NotificationDelivery).where(
            NotificationDelivery.user_id.in_([m.id for m in members])))
        assert queued == size * CHANNELS
        assert sqs_calls == ["SendMessageBatch"] * math.ceil(queued / 10)
        # de-duplicated within the window: the same call again notifies nobody
        status, body = squad_api(squad_id=squad.id, audience="squad", type="todo_assigned", title="Hello squad",
                                 resource_type="squad", resource_id=squad.id)
        assert status == 200 and body["notified"] == []
    assert counts[10] == counts[100], counts


def test_insert_rows_splits_past_the_protocols_limit_on_bound_values(db):
    """A multi-row INSERT carries at most 65,535 bound values; more rows than that allows go in as few
    statements as fit, never a driver error (a 500)."""
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.models import HistoryEntry

    rows = [{"entity_type": "bulk", "entity_id": f"e{n}", "action": "created"} for n in range(20_000)]
    inserted = insert_rows(db, HistoryEntry, rows)  # 20,000 rows of at least 5 columns: 100,000 values or more
    assert len(inserted) == 20_000 and len({row["id"] for row in inserted}) == 20_000
    assert db.scalar(select(func.count()).select_from(HistoryEntry).where(HistoryEntry.entity_type == "bulk")) == 20_000
