"""Session 30, a request's deadline (docs/decisions/infra.md): the AI provider's 20 s timeout (session 23) bounded one
call, not the retry after a 429: an answer after 19 s asking to wait 5 s, then a retry that hangs, was 44 s, past API
Gateway's 29 s. Now the retry gets what is left of the request's 25 s: the provider's timeout by then, which this
route answers as a failed generation (502, docs/decisions/projects.md), the previous summary kept."""
import json

import responses

from tests.areas.projects.test_insights import AI_URL, boss, live, project  # noqa: F401
from tests.core.test_request_deadline_s30 import DEADLINE, answers_after, hung, slow  # noqa: F401


@responses.activate
def test_a_summary_whose_ai_provider_is_slow_fails_by_the_deadline(api, boss, project, set_env, slow):  # noqa: F811
    previous = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"]  # the sandbox's
    live(set_env)
    limited = json.dumps({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}})
    responses.add_callback(responses.POST, AI_URL, callback=answers_after(slow, 19, 429, {"Retry-After": "5"}, limited))
    responses.add_callback(responses.POST, AI_URL, callback=hung(slow))
    started = slow.now
    response = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert slow.now - started <= DEADLINE  # 44 s before
    assert response.status == 502, response.json
    assert response.json["error"] == "AI summary generation failed: AI provider did not answer in time"
    assert api.get(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"] == previous
