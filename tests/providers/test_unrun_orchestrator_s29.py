"""Session 29, code no test ran in the orchestrator adapters: an identity value of spaces alone and an answer
without a body (live, `responses`), and the sandbox's answers to an endpoint it does not have and to a log limit
that is not a number."""
import responses

from chalicelib.providers.orchestrator.live import HttpOrchestrator, identity_value
from chalicelib.providers.orchestrator.sandbox import SandboxOrchestrator


def test_an_identity_value_of_spaces_alone_is_encoded_whole():
    assert identity_value("   ") == "%20%20%20"
    assert identity_value(" Ann ") == "%20Ann%20"


@responses.activate
def test_an_answer_without_a_body_is_its_status_and_an_empty_object():
    responses.post("https://orchestrator.example/restart", status=204)
    orchestrator = HttpOrchestrator(base_url="https://orchestrator.example", token="t", agents=[])
    assert orchestrator.orchestrator("POST", "/restart", caller={"id": "u1"}) == (204, {})


def test_the_sandbox_answers_404_for_an_endpoint_it_does_not_have_and_400_for_a_bad_limit(db):
    sandbox = SandboxOrchestrator(db=db, agent_ids=["seo-agent"])
    assert sandbox.orchestrator("DELETE", "/tasks", caller={}) == (
        404, {"error": "No such orchestrator endpoint: DELETE /tasks"})
    assert sandbox.agent("seo-agent", "GET", "/logs", caller={}, params={"limit": "ten"}) == (
        400, {"error": "limit must be a number"})
    assert sandbox.agent("seo-agent", "PUT", "/config", caller={}) == (
        404, {"error": "No such agent endpoint: PUT /config"})
