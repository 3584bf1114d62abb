"""The editor's AI command (POST /api/pages/ai/command, any employee with pages:update) hands the provider an
instruction and a selected text of any length (security audit S6, resource exhaustion).

Copilot bounds its prompt (20,000 characters) and the command cuts the document context to 20,000, but the
instruction (the last user message's text parts, joined) and the selection (any span of `ctx.children`) are sent
whole: one request of a few MB is a prompt of about a million tokens, billed to the agency up to the model's
context window (and refused by the provider past it, after the upload), repeatable at will.
"""
import pytest

from chalicelib.providers.ai.sandbox import SandboxAI
from tests.factories import make_user

PROMPT_BUDGET = 60_000  # instruction + selection + context, 20,000 characters each
LONG = "word " * 200_000  # 1,000,000 characters


@pytest.fixture
def prompts(monkeypatch):
    seen = []
    original = SandboxAI.edit_text

    def recording(self, *, mode, instruction, text=None, context=None):
        seen.append(len(instruction) + len(text or "") + len(context or ""))
        return original(self, mode=mode, instruction=instruction, text=text, context=context)

    monkeypatch.setattr(SandboxAI, "edit_text", recording)
    return seen


def _command(api, user, *, instruction, children, selection=None):
    return api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": children, "selection": selection, "toolName": "edit"},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": instruction}]}]})


def test_an_employee_cannot_send_the_ai_provider_a_megabyte_instruction(api, db, prompts):
    user = make_user(db, access_level="employee")
    answer = _command(api, user, instruction=LONG, children=[{"type": "p", "children": [{"text": "Hello"}]}])
    assert answer.status == 400 or max(prompts) <= PROMPT_BUDGET, f"the provider was sent {max(prompts):,} characters"


def test_an_employee_cannot_send_the_ai_provider_a_megabyte_selection(api, db, prompts):
    user = make_user(db, access_level="employee")
    selection = {"anchor": {"path": [0, 0], "offset": 0}, "focus": {"path": [0, 0], "offset": len(LONG)}}
    answer = _command(api, user, instruction="shorten", selection=selection,
                      children=[{"type": "p", "children": [{"text": LONG}]}])
    assert answer.status == 400 or max(prompts) <= PROMPT_BUDGET, f"the provider was sent {max(prompts):,} characters"


def test_an_ai_command_carries_a_bounded_conversation(api, db):
    """Only the last user message's text is used, yet a request may carry any number of messages and parts (each
    validated and walked; bounded now only by core.http's 200,000 values)."""
    user = make_user(db, access_level="employee")
    message = {"role": "user", "parts": [{"type": "text", "text": "write an intro"}] * 5}
    answer = api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": [{"type": "p", "children": [{"text": "Hello"}]}]}, "messages": [message] * 1000})
    assert answer.status == 400 and answer.json["details"][0]["field"].startswith("messages"), answer
