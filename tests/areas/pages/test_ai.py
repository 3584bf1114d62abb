"""AI editing through the sandbox provider: the UI message stream, the three modes, copilot, 503, 408."""
import json

import pytest

from chalicelib.providers.ai.sandbox import SandboxAI
from tests.factories import grant, make_user

DOC = [
    {"type": "p", "children": [{"text": "The launch is planned for March."}]},
    {"type": "p", "children": [{"text": "Budget "}, {"text": "is approved", "bold": True}, {"text": " today."}]},
]
WHOLE_SECOND_BLOCK = {"anchor": {"path": [1, 0], "offset": 0}, "focus": {"path": [1, 2], "offset": 7}}


@pytest.fixture
def user(db):
    return make_user(db)


def events(response) -> list:
    body = response.body.decode()
    assert body.endswith("\n\n")
    chunks = body.split("\n\n")[:-1]
    assert all(chunk.startswith("data: ") for chunk in chunks)
    return [chunk[len("data: "):] for chunk in chunks]


def parts(response) -> list[dict]:
    raw = events(response)
    assert raw[-1] == "[DONE]"
    return [json.loads(item) for item in raw[:-1]]


def command(api, user, *, instruction, selection=None, tool=None, children=DOC, **kw):
    ctx = {"children": children, "selection": selection}
    if tool:
        ctx["toolName"] = tool
    return api.post("/api/pages/ai/command", as_=user, json={
        "ctx": ctx, "messages": [{"role": "user", "parts": [{"type": "text", "text": instruction}]}]}, **kw)


def streamed_text(items) -> str:
    return "".join(p["delta"] for p in items if p["type"] == "text-delta")


@pytest.mark.smoke
def test_edit_selection_streams_ui_message_parts(api, user):
    response = command(api, user, instruction="make it upper case", selection=WHOLE_SECOND_BLOCK, tool="edit")
    assert response.status == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    items = parts(response)
    kinds = [p["type"] for p in items]
    assert kinds[:4] == ["start", "data-toolName", "start-step", "text-start"]
    assert kinds[-3:] == ["text-end", "finish-step", "finish"]
    assert set(kinds[4:-3]) == {"text-delta"} and len(kinds[4:-3]) > 1
    assert items[1] == {"type": "data-toolName", "data": "edit"}
    text_id = items[3]["id"]
    assert all(p["id"] == text_id for p in items if p["type"].startswith("text-"))
    expected = SandboxAI().edit_text(mode="edit", instruction="make it upper case", text="Budget is approved today.")
    assert streamed_text(items) == expected == "BUDGET IS APPROVED TODAY."


def test_selection_with_another_tool_rewrites(api, user):
    selection = {"anchor": {"path": [0, 0], "offset": 4}, "focus": {"path": [0, 0], "offset": 10}}
    items = parts(command(api, user, instruction="rephrase", selection=selection, tool="generate"))
    assert items[1] == {"type": "data-toolName", "data": "generate"}  # the tool named (spec), not "rewrite"
    assert streamed_text(items) == SandboxAI().edit_text(mode="rewrite", instruction="rephrase", text="launch")


def test_the_tool_name_event_names_one_of_the_two_tools(api, user):
    """Document 3: a `data-toolName` event naming the tool; the tools are `edit` and `generate`. A selection
    rewritten without a tool (or with `generate`) names `generate`, never a mode of our own."""
    selection = {"anchor": {"path": [0, 0], "offset": 4}, "focus": {"path": [0, 0], "offset": 10}}
    for tool, named in ((None, "generate"), ("generate", "generate"), ("edit", "edit")):
        items = parts(command(api, user, instruction="rephrase", selection=selection, tool=tool))
        assert items[1] == {"type": "data-toolName", "data": named}
    items = parts(command(api, user, instruction="write", tool="edit"))  # no selection: generates
    assert items[1] == {"type": "data-toolName", "data": "generate"}


@pytest.mark.parametrize("tool", ["rewrite", "comment", "EDIT", ""])
def test_a_tool_name_other_than_edit_or_generate_is_400(api, user, tool):
    """Document 3: `toolName?: edit or generate`; decisions.md section 4: an unknown enum value is a 400."""
    response = api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": DOC, "selection": None, "toolName": tool},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": "write"}]}]})
    assert response.status == 400 and response.json["details"][0]["field"] == "ctx.toolName"


def test_backwards_selection_covers_the_same_text(api, user):
    backwards = {"anchor": WHOLE_SECOND_BLOCK["focus"], "focus": WHOLE_SECOND_BLOCK["anchor"]}
    items = parts(command(api, user, instruction="upper", selection=backwards, tool="edit"))
    assert streamed_text(items) == "BUDGET IS APPROVED TODAY."


def test_without_selection_generates(api, user):
    items = parts(command(api, user, instruction="write a summary"))
    assert items[1] == {"type": "data-toolName", "data": "generate"}
    assert streamed_text(items) == SandboxAI().edit_text(mode="generate", instruction="write a summary")


def test_command_input_errors_are_400(api, user):
    assert api.post("/api/pages/ai/command", as_=user, json={"messages": []}).status == 400
    no_text = api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": DOC, "selection": None}, "messages": [{"role": "user", "parts": [{"type": "image"}]}]})
    assert no_text.status == 400
    assert api.post("/api/pages/ai/command", as_=user, json={"ctx": {"children": "text"}, "messages": [
        {"role": "user", "parts": [{"type": "text", "text": "x"}]}]}).status == 400


def test_collapsed_selection_generates(api, user):
    cursor = {"anchor": {"path": [0, 0], "offset": 4}, "focus": {"path": [0, 0], "offset": 4}}
    items = parts(command(api, user, instruction="add a line", selection=cursor, tool="edit"))
    assert items[1] == {"type": "data-toolName", "data": "generate"}


def test_ai_off_is_503(api, user, set_env):
    set_env(AI_MODE="off")
    response = command(api, user, instruction="write")
    assert response.status == 503 and "error" in response.json
    copilot = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "The plan", "system": "continue"})
    assert copilot.status == 503


def test_copilot_completes_at_most_50_tokens(api, user):
    response = api.post("/api/pages/ai/copilot", as_=user,
                        json={"prompt": "Our quarterly roadmap", "system": "Complete the sentence."})
    assert response.status == 200
    text = response.json["text"]
    assert text == SandboxAI().complete(prefix="Our quarterly roadmap", max_tokens=50)
    assert response.json["content"] == [{"type": "text", "text": text}]
    assert api.post("/api/pages/ai/copilot", as_=user, json={"system": "x"}).status == 400


def test_copilot_asks_the_provider_for_50_tokens(api, user, monkeypatch):
    seen = {}

    def complete(self, *, prefix, max_tokens, system=None, timeout=None):
        seen.update(prefix=prefix, max_tokens=max_tokens)
        return " more"

    monkeypatch.setattr(SandboxAI, "complete", complete)
    assert api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hello"}).json["text"] == " more"
    assert seen == {"prefix": "Hello", "max_tokens": 50}


def test_copilot_aborted_by_the_client_is_408(api, user, monkeypatch):
    assert api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"},
                    headers={"X-Request-Timeout-Ms": "0"}).status == 408

    def slow(self, *, prefix, max_tokens, system=None, timeout=None):
        import time
        time.sleep(0.05)
        return "late"

    monkeypatch.setattr(SandboxAI, "complete", slow)
    late = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"}, headers={"X-Request-Timeout-Ms": "10"})
    assert late.status == 408 and late.json == {"error": "Copilot request aborted by the client"}
    in_time = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"},
                       headers={"X-Request-Timeout-Ms": "5000"})
    assert in_time.status == 200 and in_time.json["text"] == "late"
    bad = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"}, headers={"X-Request-Timeout-Ms": "soon"})
    assert bad.status == 400


def test_ai_needs_pages_update(api, db):
    viewer = make_user(db)
    grant(db, viewer, "pages", "view")
    assert command(api, viewer, instruction="x").status == 403
    assert api.post("/api/pages/ai/copilot", as_=viewer, json={"prompt": "x"}).status == 403
    assert api.post("/api/pages/ai/copilot", json={"prompt": "x"}).status == 401
