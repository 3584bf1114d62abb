"""Session 31 (round 2, decided follow-ups): once an agent task is approved (building, review, done) its scope document
is the approved scope. PATCH changing it there is 409 naming the stage (the effort estimate and confidence note stay
editable), and a report of a run that is not a scoping run does not overwrite it (the rest of its report is kept)."""
import pytest

from tests.areas.agents.factories import configured_agent_task, make_agent_task, move_agent_task, report_run

APPROVED = "# Approved scope\nBuild the checkout"


def _agent(api, task, user) -> dict:
    answer = api.get(f"/api/agent-tasks/{task.id}", as_=user)
    assert answer.status == 200, answer
    return answer.json["agent"]


@pytest.mark.parametrize("stage", ["building", "review", "done"])
def test_patch_cannot_change_the_approved_scope(api, db, exec_user, stage):
    task, _ = make_agent_task(db, stage=stage, scope_document=APPROVED, effort_estimate="M")
    refused = api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user,
                        json={"scope_document": "# Something else", "effort_estimate": "XL"})
    assert refused.status == 409, refused
    assert stage in refused.json["error"]
    assert refused.json["details"] == [
        {"field": "scope_document", "message": f"is the approved scope in stage {stage}"}]
    agent = _agent(api, task, exec_user)
    assert (agent["scope_document"], agent["effort_estimate"]) == (APPROVED, "M")  # nothing written


@pytest.mark.parametrize("stage", ["building", "review", "done"])
def test_the_other_fields_stay_editable_after_approval(api, db, exec_user, stage):
    task, _ = make_agent_task(db, stage=stage, scope_document=APPROVED, effort_estimate="M")
    # the scope sent back as stored (a form saved whole) is no change, so it is not refused
    answer = api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user, json={
        "scope_document": APPROVED, "effort_estimate": "L", "agent_confidence_note": "the footer is tricky"})
    assert answer.status == 200, answer
    agent = answer.json["task"]["agent"]
    assert (agent["scope_document"], agent["effort_estimate"], agent["agent_confidence_note"]) == (
        APPROVED, "L", "the footer is tricky")


@pytest.mark.parametrize("stage", ["draft", "pending_approval", "rejected"])
def test_the_scope_is_editable_before_approval(api, db, exec_user, stage):
    task, _ = make_agent_task(db, stage=stage, scope_document="# Draft scope")
    answer = api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user, json={"scope_document": "# Edited scope"})
    assert answer.status == 200, answer
    assert answer.json["task"]["agent"]["scope_document"] == "# Edited scope"


def test_a_build_report_keeps_the_approved_scope_and_the_rest_of_its_report(api, db, exec_user):
    task = configured_agent_task(db, stage="pending_approval", scope_document=APPROVED)
    build = move_agent_task(api, task, "approve", exec_user)["run"]["id"]
    answer = report_run(api, db, build, "success", scope_document="# The runner's rewrite", effort_estimate="L",
                        branch_name="agent/checkout", ci_status="passed", browser_test_status="passed")
    assert answer["stage"] == "review"
    agent = _agent(api, task, exec_user)
    assert agent["scope_document"] == APPROVED
    assert (agent["effort_estimate"], agent["branch_name"], agent["ci_status"], agent["browser_test_status"]) == (
        "L", "agent/checkout", "passed", "passed")


def test_a_rebuild_report_keeps_the_approved_scope(api, db, exec_user):
    task = configured_agent_task(db, stage="review", scope_document=APPROVED)
    rebuild = move_agent_task(api, task, "review-reject", exec_user, reason="fix the footer")["run"]["id"]
    report_run(api, db, rebuild, "running", scope_document="# Interim rewrite", branch_name="agent/footer")
    agent = _agent(api, task, exec_user)
    assert (agent["scope_document"], agent["branch_name"]) == (APPROVED, "agent/footer")


def test_a_scoping_report_still_writes_the_scope(api, db, exec_user):
    task = configured_agent_task(db, stage="draft")
    scoping = move_agent_task(api, task, "dispatch", exec_user)["run"]["id"]
    assert report_run(api, db, scoping, "success", scope_document="# Scope from the runner")["stage"] == \
        "pending_approval"
    assert _agent(api, task, exec_user)["scope_document"] == "# Scope from the runner"
