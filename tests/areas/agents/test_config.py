"""Project agent configuration: GET and PUT /api/projects/{id}/agent-config (tool projects)."""
import logging

import pytest
from sqlalchemy import select

from chalicelib.areas.agents.models import ProjectAgentConfig
from chalicelib.core import crypto
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user

SECRET = "a-very-secret-runner-token-123456"
FULL = {"project_type": "web", "repo_org": "agency", "repo_name": "site", "default_branch": "main",
        "deploy_target": "vercel", "preview_url_pattern": "https://{branch}.preview.agency.test",
        "production_url": "https://www.client.test", "workflow_config": {"tests": ["unit", "e2e"], "node": 20},
        "runner_url": "https://runner.agency.test/runs", "enabled": True, "runner_secret": SECRET}


def path(project):
    return f"/api/projects/{project.id}/agent-config"


@pytest.mark.smoke
def test_config_lifecycle_never_returns_the_secret(api, db, exec_user, caplog):
    caplog.set_level(logging.DEBUG)
    project = make_project(db, owner_id=exec_user.id)
    assert api.get(path(project), as_=exec_user).json == {"config": None}

    saved = api.put(path(project), as_=exec_user, json=FULL)
    assert saved.status == 200, saved
    config = saved.json["config"]
    for name, value in FULL.items():
        if name == "runner_secret":
            continue
        assert config[name] == (1 if value is True else value), name
    assert config["runner_secret_set"] == 1 and "runner_secret" not in config
    assert config["project_id"] == project.id and config["updated_by"] == exec_user.id
    assert SECRET not in saved.body.decode()

    stored = db.scalar(select(ProjectAgentConfig).where(ProjectAgentConfig.project_id == project.id))
    assert stored.runner_secret_encrypted != SECRET and SECRET not in stored.runner_secret_encrypted
    assert crypto.decrypt(stored.runner_secret_encrypted) == SECRET

    read = api.get(path(project), as_=exec_user)
    assert read.json["config"] == config and SECRET not in read.body.decode()

    # a replacement without runner_secret keeps it (the runner stays on its host: tests/security covers a move);
    # every other field is replaced
    kept = api.put(path(project), as_=exec_user, json={"runner_url": "https://runner.agency.test/v2/runs",
                                                        "enabled": True})
    assert kept.status == 200, kept
    assert kept.json["config"]["runner_secret_set"] == 1 and kept.json["config"]["repo_name"] is None
    assert kept.json["config"]["workflow_config"] is None
    cleared = api.put(path(project), as_=exec_user, json={"runner_secret": None})
    assert cleared.json["config"]["runner_secret_set"] == 0 and cleared.json["config"]["enabled"] == 0
    assert all(SECRET not in record.getMessage() for record in caplog.records)
    assert SECRET not in caplog.text


@pytest.mark.parametrize("changes, field", [
    ({"runner_url": "ftp://runner.agency.test"}, "runner_url"),
    ({"runner_url": "not a url"}, "runner_url"),
    ({"production_url": "javascript:alert(1)"}, "production_url"),
    ({"preview_url_pattern": "https://preview.agency.test"}, "preview_url_pattern"),
    ({"preview_url_pattern": "ftp://{branch}.agency.test"}, "preview_url_pattern"),
    ({"workflow_config": ["not", "an", "object"]}, "workflow_config"),
    ({"enabled": "yes"}, "enabled"),
    ({"runner_secret": "short"}, "runner_secret"),
    ({"runner_url": "http://169.254.169.254/latest/meta-data"}, "runner_url"),
    ({"runner_url": None}, "runner_url"),  # enabled needs a runner
])
def test_config_fields_are_validated(api, db, exec_user, changes, field):
    project = make_project(db, owner_id=exec_user.id)
    answer = api.put(path(project), as_=exec_user, json={**FULL, **changes})
    assert answer.status == 400, answer
    assert field in [detail["field"] for detail in answer.json["details"]], answer.json
    assert api.get(path(project), as_=exec_user).json == {"config": None}


def test_enabled_needs_a_secret(api, db, exec_user):
    project = make_project(db, owner_id=exec_user.id)
    body = {key: value for key, value in FULL.items() if key != "runner_secret"}
    answer = api.put(path(project), as_=exec_user, json=body)
    assert answer.status == 400 and answer.json["details"][0]["field"] == "runner_secret"
    assert api.put(path(project), as_=exec_user, json={**body, "enabled": False}).status == 200


def test_config_needs_projects_update_on_a_visible_project(api, db, exec_user, employee):
    mine = make_project(db, owner_id=employee.id)
    hidden = make_project(db, owner_id=exec_user.id)
    assert api.put(path(mine), as_=employee, json=FULL).status == 200
    assert api.put(path(hidden), as_=employee, json=FULL).status == 404
    assert api.get(path(hidden), as_=employee).status == 404
    viewer = make_user(db, access_level="employee")
    grant(db, viewer, "projects", "view")
    mine_too = make_project(db, owner_id=viewer.id)
    assert api.get(path(mine_too), as_=viewer).status == 200
    assert api.put(path(mine_too), as_=viewer, json=FULL).status == 403
    manager = make_user(db, access_level="manager")  # outside the project's team
    assert api.put(path(hidden), as_=manager, json=FULL).status == 404
    assert api.put("/api/projects/nope/agent-config", as_=exec_user, json=FULL).status == 404


def test_a_secret_the_key_cannot_read_is_not_set(api, db, exec_user, set_env):
    from cryptography.fernet import Fernet

    project = make_project(db, owner_id=exec_user.id)
    assert api.put(path(project), as_=exec_user, json=FULL).status == 200
    set_env(SECRETS_KEY=Fernet.generate_key().decode())  # the key was rotated without re-encrypting
    from chalicelib.areas.agents.service_config import runner_secret

    stored = db.scalar(select(ProjectAgentConfig).where(ProjectAgentConfig.project_id == project.id))
    assert runner_secret(stored) is None
