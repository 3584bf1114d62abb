"""The AI provider interface: the three jobs the service asks of it."""
from __future__ import annotations

import re
from abc import ABC, abstractmethod

from chalicelib.core.errors import BadGateway
from chalicelib.core.serialize import clean_text

EDIT_MODES = ("edit", "rewrite", "generate")
MEETING_CATEGORIES = ("client", "sales", "internal", "standup", "one_on_one", "interview", "other")
class AIProvider(ABC):
    @abstractmethod
    def project_summary(self, facts: dict) -> dict:
        """`{summary: 3 to 5 sentences, recommendations: 2 to 3 strings}` from a project's facts."""

    @abstractmethod
    def edit_text(self, *, mode: str, instruction: str, text: str | None = None, context: str | None = None) -> str:
        """Edit or rewrite a selection, or generate new text, following the instruction."""

    @abstractmethod
    def research_brief(self, page: dict) -> dict:
        """A pre-call research brief as JSON from a fetched page's facts (url, title, description, text,
        platform): the research area checks it against its schema (a failure stores a failed brief)."""

    @abstractmethod
    def complete(self, *, prefix: str, max_tokens: int, system: str | None = None,
                 timeout: float | None = None) -> str:
        """Continue the text (copilot), at most `max_tokens` tokens; `system` steers the style and
        `timeout` (seconds) bounds the provider call."""

    @abstractmethod
    def analyse_meeting(self, *, title: str, summary: str, action_items: str, attendees: list[dict]) -> dict:
        """`{category: one of MEETING_CATEGORIES, action_items: [{text, assignee_email or None}]}` from a
        meeting's notes (the meetings area's categorisation and action-item extraction)."""

    @abstractmethod
    def answer_from_figures(self, *, question: str, figures: dict) -> str:
        """A short natural-language answer to a client's question about its performance, from `figures` only
        (the portal's results: period, metrics with prior values and targets, top campaigns)."""


def _meeting_category(value) -> str | None:
    """The category an analysis names, read as the categories are written whatever its case, spaces, hyphens or
    underscores ("Sales", "One-on-one", "stand up"; session 31: a near miss failed the analysis and lost its action
    items), or None for any other value."""
    if not isinstance(value, str):
        return None
    letters = re.sub(r"[\s_-]+", "", value).lower()
    return next((category for category in MEETING_CATEGORIES if category.replace("_", "") == letters), None)


def check_meeting_analysis(result: dict, attendees: list[dict]) -> dict:
    """The contract of a meeting analysis; an answer outside it is a failed analysis (502). The first 50 distinct
    action items are kept (session 31: an item repeated in one answer, the same text for the same assignee whatever
    its case or spacing, is kept once, and items after the 50th are not read, so a bad one there fails nothing)."""
    category = _meeting_category(result.get("category")) if isinstance(result, dict) else None
    if category is None:
        raise BadGateway("AI meeting analysis failed: the category must be one of " + ", ".join(MEETING_CATEGORIES))
    emails = {(a.get("email") or "").strip().lower() for a in attendees}
    listed = result.get("action_items")
    if listed is not None and not isinstance(listed, list):  # session 30: a number or a boolean was a TypeError,
        # which the meetings sync does not catch (its whole batch failed); a string or an object was read item by item
        raise BadGateway("AI meeting analysis failed: action_items must be a list")
    items, seen = [], set()
    for item in listed or []:
        if len(items) == 50:
            break
        text = clean_text(item["text"]).strip() if isinstance(item, dict) and isinstance(item.get("text"), str) else ""
        if not text:
            raise BadGateway("AI meeting analysis failed: each action item needs a text")
        email = item.get("assignee_email")
        if email is not None and not isinstance(email, str):  # session 29: 5 or a list raised AttributeError, which
            raise BadGateway("AI meeting analysis failed: an action item's assignee_email must be a string or null")
        # (the meetings sync does not catch: its whole run failed); trimmed as attendees' are (session 32: " pat@x"
        # assigned nobody)
        email = (email or "").strip().lower() or None
        # the text cleaned (session 30): a NUL or a lone surrogate failed the write of the batch's action items
        item = {"text": text[:2000], "assignee_email": email if email in emails else None}
        key = (" ".join(item["text"].split()).casefold(), item["assignee_email"])
        if key not in seen:
            seen.add(key)
            items.append(item)
    return {"category": category, "action_items": items}


def sentence_count(text: str) -> int:
    return len([s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s])


def check_project_summary(result: dict) -> dict:
    """The contract of a project summary; a provider answer outside it is a failed generation (502). Its texts are
    cleaned (`clean_text`, session 30: a NUL in the summary was a 400 to the caller, a lone surrogate a 500)."""
    summary = result.get("summary") if isinstance(result, dict) else None
    recommendations = result.get("recommendations") if isinstance(result, dict) else None
    summary = clean_text(summary).strip() if isinstance(summary, str) else None
    if summary is None or not 3 <= sentence_count(summary) <= 5:
        raise BadGateway("AI summary generation failed: the summary must have 3 to 5 sentences")
    if isinstance(recommendations, list):
        recommendations = [clean_text(r).strip() if isinstance(r, str) else None for r in recommendations]
    if not isinstance(recommendations, list) or not 2 <= len(recommendations) <= 3 or not all(recommendations):
        raise BadGateway("AI summary generation failed: 2 to 3 recommendations are required")
    return {"summary": summary, "recommendations": recommendations}
