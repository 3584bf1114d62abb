"""Session 25 (save-back audit): a project's agent configuration read and PUT back unchanged (by another user)
keeps its `updated_by` and `updated_at`; a changed field, or a runner_secret sent, records the editor."""
from datetime import timedelta

from sqlalchemy import text

from chalicelib.core.ids import utcnow
from tests.areas.agents.test_config import FULL, SECRET
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _saved(api, db, owner):
    project = make_project(db, owner_id=owner.id)
    path = f"/api/projects/{project.id}/agent-config"
    assert api.put(path, as_=owner, json=FULL).status == 200
    db.execute(text("UPDATE project_agent_configs SET updated_at = :aged "
                    "WHERE project_id = :id"), {"aged": utcnow() - timedelta(days=1), "id": project.id})
    db.commit()
    return path


def test_config_sent_back_by_another_keeps_editor_and_time(api, db, exec_user):
    path = _saved(api, db, exec_user)
    other = make_user(db, access_level="executive")
    config = api.get(path, as_=other).json["config"]
    same = api.put(path, as_=other, json=config)
    assert same.status == 200, same
    assert (same.json["config"]["updated_by"], same.json["config"]["updated_at"]) == \
        (exec_user.id, config["updated_at"])
    assert api.get(path, as_=other).json["config"] == config


def test_a_changed_field_records_the_editor(api, db, exec_user):
    path = _saved(api, db, exec_user)
    other = make_user(db, access_level="executive")
    config = api.get(path, as_=other).json["config"]
    changed = api.put(path, as_=other, json={**config, "workflow_config": {"tests": ["unit"], "node": 20}})
    assert changed.status == 200, changed
    assert changed.json["config"]["updated_by"] == other.id
    assert changed.json["config"]["updated_at"] > config["updated_at"]


def test_a_runner_secret_sent_records_the_editor(api, db, exec_user):
    path = _saved(api, db, exec_user)
    other = make_user(db, access_level="executive")
    config = api.get(path, as_=other).json["config"]
    resent = api.put(path, as_=other, json={**config, "runner_secret": SECRET})
    assert resent.status == 200, resent
    assert resent.json["config"]["updated_by"] == other.id
    assert resent.json["config"]["updated_at"] > config["updated_at"]
