"""AI-assisted editing: the editor's command (a UI message stream) and inline copilot completion.

Chalice cannot stream, so the command's server-sent events are produced whole and written into one
`text/event-stream` response, in the AI SDK's UI message stream protocol (v1): `start`, a
`data-toolName` part, `start-step`, `text-start`, `text-delta`s, `text-end`, `finish-step`,
`finish`, then `[DONE]`.
"""
from __future__ import annotations

import json
import re
import time
import uuid


from chalicelib.core.errors import BadRequest, RequestTimeout
from chalicelib.providers.ai import get_ai

COPILOT_MAX_TOKENS = 50
CONTEXT_LIMIT = 20000
# API Gateway gives up on an integration after 29 s: past that the caller is gone.
GATEWAY_LIMIT_SECONDS = 29.0
DEADLINE_MARGIN_SECONDS = 0.5
CLIENT_TIMEOUT_HEADER = "X-Request-Timeout-Ms"
STREAM_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
    "x-vercel-ai-ui-message-stream": "v1",
}


# --- the editor document ---------------------------------------------------------------------

def _leaves(nodes, path=()):
    """(path, text) of every text leaf of a rich-editor node tree, in document order."""
    for index, node in enumerate(nodes if isinstance(nodes, list) else []):
        if not isinstance(node, dict):
            continue
        here = path + (index,)
        if isinstance(node.get("text"), str):
            yield here, node["text"]
        elif isinstance(node.get("children"), list):
            yield from _leaves(node["children"], here)


def document_text(children) -> str:
    blocks: dict[int, list[str]] = {}
    for path, text in _leaves(children):
        blocks.setdefault(path[0], []).append(text)
    return "\n".join("".join(parts) for _, parts in sorted(blocks.items()))


def _point(value):
    if not isinstance(value, dict):
        return None
    path, offset = value.get("path"), value.get("offset")
    if not isinstance(path, list) or not all(isinstance(i, int) for i in path) or not isinstance(offset, int):
        return None
    return tuple(path), offset


def selection_text(children, selection) -> str:
    """The text a selection (`{anchor: {path, offset}, focus: {path, offset}}`: an object, as the request's schema
    makes it) covers."""
    anchor, focus = _point(selection.get("anchor")), _point(selection.get("focus"))
    if anchor is None or focus is None:
        return ""
    start, end = sorted((anchor, focus))
    blocks: dict[int, list[str]] = {}
    for path, text in _leaves(children):
        if path < start[0] or path > end[0]:
            continue
        lo = start[1] if path == start[0] else 0
        hi = end[1] if path == end[0] else len(text)
        blocks.setdefault(path[0], []).append(text[max(0, lo):max(0, hi)])
    return "\n".join("".join(parts) for _, parts in sorted(blocks.items())).strip()


def _instruction(messages) -> str:
    for message in reversed(messages):
        if message.role == "user":
            text = "".join(part.text or "" for part in message.parts if part.type == "text").strip()
            if len(text) > CONTEXT_LIMIT:  # the provider is paid per character (security audit S6)
                raise BadRequest(f"The instruction is longer than {CONTEXT_LIMIT:,} characters",
                                 details=[{"field": "messages", "message": f"at most {CONTEXT_LIMIT:,} characters"}])
            if text:
                return text
    raise BadRequest("The last user message needs a text part with the instruction",
                     details=[{"field": "messages", "message": "No instruction text"}])


# --- the UI message stream ------------------------------------------------------------------

def _event(part) -> str:
    return "data: " + (part if isinstance(part, str) else json.dumps(part, separators=(",", ":"))) + "\n\n"


def _chunks(text: str) -> list[str]:
    """Word-sized deltas, as a streaming model would send them; joined they give the text back."""
    return re.findall(r"\s*\S+\s*", text) or ([text] if text else [])


def ui_message_stream(tool_name: str, text: str) -> str:
    text_id = f"txt_{uuid.uuid4().hex[:16]}"
    parts: list = [{"type": "start", "messageId": f"msg_{uuid.uuid4().hex}"},
                   {"type": "data-toolName", "data": tool_name},
                   {"type": "start-step"},
                   {"type": "text-start", "id": text_id}]
    parts += [{"type": "text-delta", "id": text_id, "delta": chunk} for chunk in _chunks(text)]
    parts += [{"type": "text-end", "id": text_id}, {"type": "finish-step"}, {"type": "finish"}, "[DONE]"]
    return "".join(_event(part) for part in parts)


def command(ctx, *, data) -> str:
    """Edit the selection (tool `edit`), rewrite it (a selection with another tool), or generate."""
    instruction = _instruction(data.messages)
    children = data.ctx.children
    # A collapsed selection (the cursor) covers no text: the editor is not selecting, so generate.
    selected = selection_text(children, data.ctx.selection) if data.ctx.selection else ""
    if len(selected) > CONTEXT_LIMIT:  # refused, not cut: an edit of a cut selection would lose the rest of it
        raise BadRequest(f"The selection is longer than {CONTEXT_LIMIT:,} characters",
                         details=[{"field": "ctx.selection", "message": f"at most {CONTEXT_LIMIT:,} characters"}])
    from chalicelib.core.allowance import allow

    allow(ctx, "ai_command")  # 429 past the caller's hourly allowance (docs/decisions/pages.md)
    if not selected:
        mode = "generate"
    elif data.ctx.toolName == "edit":
        mode = "edit"
    else:
        mode = "rewrite"
    ctx.release_connection()  # nothing is read or written here: hold no transaction during the call
    text = get_ai().edit_text(mode=mode, instruction=instruction, text=selected or None,
                              context=document_text(children)[:CONTEXT_LIMIT] or None)
    # the event names the tool (the spec's two: `edit`, `generate`); a rewrite of the selection is generation
    return ui_message_stream("edit" if mode == "edit" else "generate", text)


# --- copilot ---------------------------------------------------------------------------------

def _clock() -> float:
    return time.monotonic()


def _budget_seconds(ctx) -> float:
    """How long the caller still waits: API Gateway's limit, the Lambda's remaining time, and the
    client's own `X-Request-Timeout-Ms` when it sends one, whichever is shortest."""
    budget = GATEWAY_LIMIT_SECONDS
    lambda_context = getattr(ctx.request, "lambda_context", None)
    if lambda_context is not None and hasattr(lambda_context, "get_remaining_time_in_millis"):
        budget = min(budget, lambda_context.get_remaining_time_in_millis() / 1000.0 - DEADLINE_MARGIN_SECONDS)
    header = ctx.header(CLIENT_TIMEOUT_HEADER)
    if header is not None:
        try:
            client_ms = float(header)
        except ValueError:
            client_ms = float("nan")
        if client_ms != client_ms or client_ms < 0:
            # the header named in details, as every request header refused with a 400 is (session 32)
            raise BadRequest(f"{CLIENT_TIMEOUT_HEADER} must be a number of milliseconds",
                             details=[{"field": CLIENT_TIMEOUT_HEADER, "message": "must be a number of milliseconds"}])
        budget = min(budget, client_ms / 1000.0)
    return max(0.0, budget)


def copilot(ctx, *, data) -> dict:
    """A short continuation (at most 50 tokens), as a text-generation result object.

    A Lambda is never told that its caller went away; the caller is gone once the deadline has
    passed (see `_budget_seconds`), so an answer or a failure that arrives after it is a 408.
    """
    budget = _budget_seconds(ctx)
    if budget <= 0:
        raise RequestTimeout("Copilot request aborted by the client")
    started = _clock()
    ai = get_ai()
    from chalicelib.core.allowance import allow

    allow(ctx, "ai_copilot")  # 429 past the caller's hourly allowance (docs/decisions/pages.md)
    ctx.release_connection()
    try:
        text = ai.complete(prefix=data.prompt, max_tokens=COPILOT_MAX_TOKENS, system=data.system or None,
                           timeout=max(0.001, budget))
    except Exception:
        if _clock() - started >= budget:
            raise RequestTimeout("Copilot request aborted by the client") from None
        raise
    if _clock() - started >= budget:
        raise RequestTimeout("Copilot request aborted by the client")
    return {"text": text, "content": [{"type": "text", "text": text}]}
