"""A client generated with openapi-python-client from docs/openapi.json gets typed models (issue 10
item 3): no part of the document is skipped, the read models become classes, operations return them,
and the generated classes parse real answers of the service."""
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.factories import make_user

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
# read models that must be classes of the client, and operations that must return them
TYPED_MODELS = ("TaskRead", "TaskDetail", "TodoRead", "ProjectRead", "HistoryEntryRead", "PageResponse",
                "PagesPage", "NotificationsPage", "UnreadCount")
TYPED_OPERATIONS = {("tasks", "get_task"): "TaskDetail", ("tasks", "list_tasks"): "TasksPage",
                    ("tasks", "create_task"): "TaskResponse", ("projects", "list_projects"): "ProjectsPage",
                    ("pages", "list_pages"): "PagesPage", ("pages", "get_page"): "PageResponse",
                    ("notifications", "list_notifications"): "NotificationsPage",
                    ("notifications", "get_unread_count"): "UnreadCount"}


@pytest.fixture(scope="module")
def client_package(tmp_path_factory):
    if not GENERATOR.exists():
        pytest.fail("openapi-python-client is a development requirement (requirements-dev.txt)")
    out = tmp_path_factory.mktemp("client")
    config = out / "config.yaml"
    config.write_text("post_hooks: []\nproject_name_override: wms-client\npackage_name_override: wms_client\n")
    run = subprocess.run([str(GENERATOR), "generate", "--path", str(ROOT / "docs" / "openapi.json"),
                          "--config", str(config), "--output-path", str(out / "wms-client")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Unable to parse" not in run.stdout + run.stderr, run.stdout[-3000:]
    assert "Warning" not in run.stdout + run.stderr, run.stdout[-3000:]
    sys.path.insert(0, str(out / "wms-client"))
    try:
        yield out / "wms-client" / "wms_client"
    finally:
        sys.path.remove(str(out / "wms-client"))
        for name in [n for n in sys.modules if n == "wms_client" or n.startswith("wms_client.")]:
            del sys.modules[name]


def test_read_models_are_generated_classes(client_package):
    models = importlib.import_module("wms_client.models")
    for name in TYPED_MODELS:
        assert hasattr(models, name), name


def test_operations_return_their_read_models(client_package):
    import typing

    for (tag, operation), model in TYPED_OPERATIONS.items():
        module = importlib.import_module(f"wms_client.api.{tag}.{operation}")
        returned = str(typing.get_type_hints(module.sync).get("return"))
        assert model in returned, (operation, returned)


def test_the_generated_classes_parse_real_answers(client_package, api, db):
    models = importlib.import_module("wms_client.models")
    boss = make_user(db, access_level="executive")
    created = api.post("/api/tasks", json={"title": "Typed", "is_private": True}, as_=boss).json
    parsed = models.TaskResponse.from_dict(created)
    assert parsed.task.title == "Typed" and parsed.task.is_private == 1
    detail = models.TaskDetail.from_dict(api.get(f"/api/tasks/{parsed.task.id}", as_=boss).json)
    assert detail.task.id == parsed.task.id and detail.todos == []
    page = models.TasksPage.from_dict(api.get("/api/tasks", as_=boss).json)
    assert page.total == 1 and page.tasks[0].title == "Typed"
    created_page = api.post("/api/pages", json={"title": "Typed page"}, as_=boss)
    assert created_page.status == 201, created_page
    assert models.PageResponse.from_dict(created_page.json).page.title == "Typed page"
    notifications = models.NotificationsPage.from_dict(api.get("/api/notifications", as_=boss).json)
    assert notifications.notifications == []
