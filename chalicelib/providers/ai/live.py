"""Live adapter: an OpenAI-compatible `POST {base_url}/chat/completions` (`Authorization: Bearer <key>`).

Through providers.http: a 429 with `Retry-After` waits it (at most MAX_RETRY_WAIT seconds, and never longer
than the call's own timeout) and retries once, else 503 naming when to retry; a 429 without it (a quota
refusal such as `insufficient_quota`), another error status, an unreachable provider or an unreadable answer is
502 (with the provider's `error.message`); a timeout is 504."""
from __future__ import annotations

import json

from chalicelib.core.errors import BadGateway
from chalicelib.providers import http

from .base import MEETING_CATEGORIES, AIProvider, check_meeting_analysis, check_project_summary

SUMMARY_PROMPT = (
    "You summarise agency projects for their managers. Answer with a JSON object "
    '{"summary": string of 3 to 5 sentences, "recommendations": array of 2 to 3 short strings}.'
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
    except (ValueError, AttributeError):
        return ""
    message = error.get("message") if isinstance(error, dict) else error
    return f": {str(message)[:300]}" if message else ""


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
            payload["max_tokens"] = max_tokens
        if json_mode:
            payload["response_format"] = {"type": "json_object"}
        limit = min(timeout, self.timeout) if timeout else self.timeout
        response = http.send("POST", self.url, name=NAME, max_wait=min(MAX_RETRY_WAIT, limit), timeout=limit,
                             bare_429=True, json=payload, headers={"Authorization": f"Bearer {self.api_key}"})
        if response.status_code != 200:
            raise BadGateway(f"AI provider answered {response.status_code}{_message(response)}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BadGateway("AI provider answer could not be read") from exc
        if not isinstance(content, str):
            raise BadGateway("AI provider answer had no text")
        return content

    def project_summary(self, facts: dict) -> dict:
        content = self.chat(
            [{"role": "system", "content": SUMMARY_PROMPT},
             {"role": "user", "content": json.dumps(facts, default=str)}],
            json_mode=True,
        )
        try:
            result = json.loads(content)
        except ValueError as exc:
            raise BadGateway("AI summary generation failed: the answer was not JSON") from exc
        return check_project_summary(result)

    def research_brief(self, page: dict) -> dict:
        content = self.chat([{"role": "system", "content": RESEARCH_PROMPT},
                             {"role": "user", "content": json.dumps(page, default=str)[:24000]}], json_mode=True)
        try:
            result = json.loads(content)
        except ValueError as exc:
            raise BadGateway("AI research brief failed: the answer was not JSON") from exc
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
        try:
            result = json.loads(content)
        except ValueError as exc:
            raise BadGateway("AI meeting analysis failed: the answer was not JSON") from exc
        return check_meeting_analysis(result, attendees)

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
