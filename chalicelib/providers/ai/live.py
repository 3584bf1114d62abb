"""Live adapter: an OpenAI-compatible Chat Completions API, `POST {AI_BASE_URL}/chat/completions` (default
https://api.openai.com/v1), checked against https://platform.openai.com/docs/api-reference/chat/create and the
types of the official SDK (openai/openai-python, src/openai/types/chat/).

Request: `Authorization: Bearer <AI_API_KEY>`, a JSON body `{model, messages: [{role: system|user, content}],
temperature: 0.3}`; a length cap is sent as `max_completion_tokens` (the reference marks `max_tokens`
deprecated and refused by reasoning models); the JSON jobs (summary, research brief, meeting analysis) send
`response_format: {type: json_object}` (JSON mode, accepted by more compatible servers than `json_schema`;
each of their prompts says "JSON", as JSON mode requires). `temperature` is sent, so AI_MODEL must be a chat
model that accepts it (the default gpt-4o-mini does; o-series and other reasoning models refuse values but 1).

Answer: `choices[0].message.content` (a string). `message.refusal` (a string when the model refuses) is a 502
naming the refusal; `finish_reason` `content_filter` is a 502 (the content was withheld or cut); `length` is a
502 when the call asked for no cap or for JSON (the text or the JSON is cut off), and the capped answer itself
when a cap was asked for (copilot, portal answers). An answer without `finish_reason` (some compatible servers)
is read as `stop`.

Errors: the body is `{error: {message, type, param, code}}`; a failure names `error.message` (never for a 401
or 403: it may echo the key). A 429 whose `error.code` or `error.type` is `insufficient_quota` (billing, not
a rate limit: retrying cannot help) is 502 at once. Another 429 is a rate limit: its wait is `retry-after-ms`,
else `Retry-After` (seconds or an HTTP-date), else the `x-ratelimit-reset-requests` / `-tokens` duration
("1s", "6m0s", "20ms") of the limit whose `x-ratelimit-remaining-*` is 0 (the longer of the two when neither
says), else 1 s; a wait of at most MAX_RETRY_WAIT seconds (and never longer than the call's own timeout) is
waited and the call made once more, else (or on a second 429) 503 naming when to retry (`retry_after`).
Another error status, an unreachable provider or an unreadable answer is 502; a timeout is 504.
"""
from __future__ import annotations

import json
import math
import re

from chalicelib.core.errors import BadGateway
from chalicelib.providers import http
from chalicelib.providers.http import clean_text, clean_value

from .base import (
    MEETING_CATEGORIES,
    AIProvider,
    check_meeting_analysis,
    check_project_summary,
)

SUMMARY_PROMPT = (
    "You summarise agency projects for their managers. Answer with a JSON object "
    '{"summary": string of 3 to 5 sentences, "recommendations": array of 2 to 3 short strings}. '
    'Judge dates against today: the facts give "today" (in the organisation\'s time zone, "time_zone"), so a task '
    "due before it and not done is overdue, and an end date before it has passed."
)
RESEARCH_PROMPT = (
    "You prepare agency sales staff for a first call with an online business. From the facts of its website, "
    'answer with a JSON object {"company_summary": string, "offering": array of strings, "platform": string or '
    'null, "talking_points": array of 2 to 6 strings, "questions": array of 2 to 6 strings, "risks": array of '
    "strings}. Use only the facts given."
)
COPILOT_PROMPT = "Continue the user's text naturally. Answer with the continuation only."
EDIT_PROMPTS = {
    "edit": "Edit the selected text as instructed. Answer with the edited text only.",
    "rewrite": "Rewrite the selected text as instructed, keeping its meaning. Answer with the new text only.",
    "generate": "Write new text as instructed, fitting the surrounding document. Answer with the text only.",
}


NAME = "AI provider"
MAX_RETRY_WAIT = 5.0  # seconds a 429's Retry-After may make a call wait before its one retry


def _message(response) -> str:
    """The OpenAI-style error body's `error.message`, else nothing (never for a refused key: it may echo it)."""
    if response.status_code in (401, 403):
        return ""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError, RecursionError):  # RecursionError: a body nested too deep to read
        return ""
    message = error.get("message") if isinstance(error, dict) else error
    # cleaned (session 30): a NUL in it failed the write of a failed research brief's error (a 400 to the caller)
    return f": {clean_text(str(message)[:300])}" if message else ""


def _quota_refused(response) -> bool:
    """A 429 whose `error.code` or `error.type` is `insufficient_quota`: the account is out of credit."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError, RecursionError):
        return False
    return isinstance(error, dict) and "insufficient_quota" in (error.get("code"), error.get("type"))


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def _duration(value: str | None) -> float | None:
    """Seconds of an `x-ratelimit-reset-*` duration such as `1s`, `6m0s`, `20ms` or `1h2m3.5s`; None if unreadable."""
    value = (value or "").strip()
    parts = _DURATION.findall(value)
    if not parts or "".join(number + unit for number, unit in parts) != value:
        return None
    seconds = sum(float(number) * _UNIT[unit] for number, unit in parts)
    return seconds if math.isfinite(seconds) else None


def _rate_limit_wait(response) -> float | None:
    """Seconds a rate-limited 429 asks to wait (the order of the module docstring); None for a quota refusal,
    which is no rate limit (providers.http.send returns it as it is)."""
    if _quota_refused(response):
        return None
    headers = response.headers
    try:
        milliseconds = float(headers["retry-after-ms"])
    except (KeyError, ValueError):
        milliseconds = math.nan
    if math.isfinite(milliseconds):  # "inf", "nan", "1e999" are unreadable (session 29: int(inf) seconds, a 500)
        return max(0.0, milliseconds / 1000.0)
    if "Retry-After" in headers:
        return http.retry_after(response)
    resets = {kind: _duration(headers.get(f"x-ratelimit-reset-{kind}")) for kind in ("requests", "tokens")}
    exhausted = [resets[kind] for kind in resets
                 if resets[kind] is not None and (headers.get(f"x-ratelimit-remaining-{kind}") or "").strip() == "0"]
    known = exhausted or [wait for wait in resets.values() if wait is not None]
    return max(known) if known else 1.0


def _json_answer(content: str, job: str):
    """The JSON value of a JSON job's answer, its strings cleaned (providers.http.clean_value: no NUL, no lone
    surrogate);
    502 when it is not JSON or nested too deep (session 30: json.loads' RecursionError on `[[[[...` was a 500, and
    failed the meetings sync's batch)."""
    try:
        value = json.loads(content)
    except (ValueError, RecursionError) as exc:
        raise BadGateway(f"{job} failed: the answer was not JSON") from exc
    return clean_value(value)


class LiveAI(AIProvider):
    def __init__(self, *, base_url: str, api_key: str, model: str, timeout: float = 30.0) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key
        self.model = model
        self.timeout = timeout

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, json_mode: bool = False,
             timeout: float | None = None) -> str:
        payload: dict = {"model": self.model, "messages": messages, "temperature": 0.3}
        if max_tokens is not None:
            payload["max_completion_tokens"] = max_tokens
        if json_mode:
            payload["response_format"] = {"type": "json_object"}
        limit = min(timeout, self.timeout) if timeout else self.timeout
        response = http.send("POST", self.url, name=NAME, max_wait=min(MAX_RETRY_WAIT, limit), timeout=limit,
                             wait_of=_rate_limit_wait, json=payload, headers={"Authorization": f"Bearer {self.api_key}"})
        if response.status_code != 200:
            raise BadGateway(f"AI provider answered {response.status_code}{_message(response)}")
        try:
            choice = response.json()["choices"][0]
            message = choice["message"]
            content, refusal, finish = message.get("content"), message.get("refusal"), choice.get("finish_reason")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as exc:
            # RecursionError (session 30): a body nested deeper than json.loads reads was a 500
            raise BadGateway("AI provider answer could not be read") from exc
        if isinstance(refusal, str) and refusal.strip():
            # cleaned (session 30): a NUL or a lone surrogate failed the write of a failed research brief's error
            raise BadGateway(f"AI provider refused: {clean_text(refusal.strip()[:300])}")
        if finish == "content_filter":
            raise BadGateway("AI provider withheld the answer (content filter)")
        if finish == "length" and (max_tokens is None or json_mode):
            raise BadGateway("AI provider answer was cut off (length)")
        if not isinstance(content, str):
            raise BadGateway("AI provider answer had no text")
        # no NUL and no lone surrogate (session 30): a copilot answer carrying one was answered as JSON a strict
        # reader refuses (the service's own response check among them)
        return clean_text(content)

    def project_summary(self, facts: dict) -> dict:
        content = self.chat(
            [{"role": "system", "content": SUMMARY_PROMPT},
             {"role": "user", "content": json.dumps(facts, default=str)}],
            json_mode=True,
        )
        return check_project_summary(_json_answer(content, "AI summary generation"))

    def research_brief(self, page: dict) -> dict:
        content = self.chat([{"role": "system", "content": RESEARCH_PROMPT},
                             {"role": "user", "content": json.dumps(page, default=str)[:24000]}], json_mode=True)
        result = _json_answer(content, "AI research brief")
        if not isinstance(result, dict):
            raise BadGateway("AI research brief failed: the answer was not a JSON object")
        return result

    def edit_text(self, *, mode: str, instruction: str, text: str | None = None, context: str | None = None) -> str:
        parts = [f"Instruction: {instruction}"]
        if text:
            parts.append(f"Selected text:\n{text}")
        if context:
            parts.append(f"Document context:\n{context}")
        return self.chat([{"role": "system", "content": EDIT_PROMPTS[mode]},
                          {"role": "user", "content": "\n\n".join(parts)}]).strip()

    def complete(self, *, prefix: str, max_tokens: int, system: str | None = None,
                 timeout: float | None = None) -> str:
        return self.chat(
            [{"role": "system", "content": system or COPILOT_PROMPT}, {"role": "user", "content": prefix}],
            max_tokens=max_tokens, timeout=timeout,
        )

    def analyse_meeting(self, *, title: str, summary: str, action_items: str, attendees: list[dict]) -> dict:
        prompt = ("You categorise agency meetings and extract their action items. Answer with a JSON object "
                  '{"category": one of ' + ", ".join(MEETING_CATEGORIES) + ', "action_items": [{"text": string, '
                  '"assignee_email": the e-mail of the attendee who owns it, or null}]}.')
        content = self.chat([{"role": "system", "content": prompt},
                             {"role": "user", "content": json.dumps({"title": title, "summary": summary,
                                                                     "action_items": action_items,
                                                                     "attendees": attendees})}], json_mode=True)
        return check_meeting_analysis(_json_answer(content, "AI meeting analysis"), attendees)

    FIGURES_PROMPT = ("You answer an agency client's question about its advertising and store performance. Use only "
                      "the figures given as JSON (the period, each metric with its prior-period value, change and "
                      "target, and the largest campaigns). Say so when the figures cannot answer the question. "
                      "Answer in at most five sentences, with the numbers that support the answer.")

    def answer_from_figures(self, *, question: str, figures: dict) -> str:
        answer = self.chat([{"role": "system", "content": self.FIGURES_PROMPT},
                            {"role": "user", "content": json.dumps({"question": question, "figures": figures})}],
                           max_tokens=400)
        if not isinstance(answer, str) or not answer.strip():
            raise BadGateway("AI answer failed: the provider answered nothing")
        return answer.strip()
