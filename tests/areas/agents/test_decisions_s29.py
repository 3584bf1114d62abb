"""Session 29: docs/decisions/agents.md claim by claim against the code (decisions-versus-code audit)."""
from tests.areas.projects.factories import make_project

SECRET = "a-very-secret-runner-token-123456"


def path(project):
    return f"/api/projects/{project.id}/agent-config"


def test_clearing_runner_url_keeps_the_secret_without_sending_it_again(api, db, exec_user):
    """agents.md, Project agent configuration: runner_secret "Left out is refused (400 naming runner_secret) when
    runner_url moves to another scheme, host or port while a secret is stored" (the secret would go to the new host).
    Clearing runner_url (turning the runner off) sends the secret nowhere, yet it was the same 400, so a configuration
    could not be switched off and its URL removed without typing the secret again or losing it."""
    project = make_project(db, owner_id=exec_user.id)
    saved = api.put(path(project), as_=exec_user, json={"runner_url": "https://runner.agency.test/runs",
                                                         "enabled": True, "runner_secret": SECRET})
    assert saved.status == 200, saved.json
    cleared = api.put(path(project), as_=exec_user, json={"runner_url": None, "enabled": False, "repo_name": "site"})
    assert cleared.status == 200, cleared.json
    config = cleared.json["config"]
    assert config["runner_url"] is None and config["enabled"] == 0 and config["repo_name"] == "site"
    assert config["runner_secret_set"] == 1  # left out: kept, as the document says
    # a new host after that still needs the secret sent again: the stored one never follows a URL it was not given to
    moved = api.put(path(project), as_=exec_user, json={"runner_url": "https://elsewhere.example.test/runs"})
    assert moved.status == 400
    assert [d["field"] for d in moved.json["details"]] == ["runner_secret"]
    # the first host back again, with the secret sent: accepted
    back = api.put(path(project), as_=exec_user, json={"runner_url": "https://runner.agency.test/runs",
                                                        "enabled": True, "runner_secret": SECRET})
    assert back.status == 200, back.json


def test_patch_sent_back_unchanged_is_no_change_of_the_list_order(api, db, exec_user):
    """agents.md, Agent tasks: the list's "Order: most recently changed agent record first", and PATCH's "a history
    event `agent_updated` records what changed". A PATCH sending the three fields back as read changes nothing (no
    history event), yet it stamped the meta record's updated_at, so a client saving an unchanged form moved the task
    to the top of everyone's pipeline list (as a page or a task sent back as read is no edit: session 25)."""
    from datetime import timedelta

    from chalicelib.core.ids import utcnow
    from tests.areas.agents.factories import make_agent_task

    older, older_agent = make_agent_task(db, effort_estimate="M", scope_document="# Scope")
    newer, newer_agent = make_agent_task(db)
    older_agent.updated_at = utcnow() - timedelta(days=2)
    newer_agent.updated_at = utcnow() - timedelta(days=1)
    db.flush()
    listed = [t["id"] for t in api.get("/api/agent-tasks", as_=exec_user).json["tasks"]]
    assert listed.index(newer.id) < listed.index(older.id)
    stamp = api.get(f"/api/agent-tasks/{older.id}", as_=exec_user).json["agent"]["updated_at"]

    same = api.patch(f"/api/agent-tasks/{older.id}", as_=exec_user,
                     json={"effort_estimate": "M", "scope_document": "# Scope", "agent_confidence_note": None})
    assert same.status == 200, same.json
    assert same.json["task"]["agent"]["updated_at"] == stamp
    listed = [t["id"] for t in api.get("/api/agent-tasks", as_=exec_user).json["tasks"]]
    assert listed.index(newer.id) < listed.index(older.id)

    # a real change is one: the record moves first
    changed = api.patch(f"/api/agent-tasks/{older.id}", as_=exec_user, json={"effort_estimate": "L"})
    assert changed.json["task"]["agent"]["updated_at"] != stamp
    listed = [t["id"] for t in api.get("/api/agent-tasks", as_=exec_user).json["tasks"]]
    assert listed.index(older.id) < listed.index(newer.id)
