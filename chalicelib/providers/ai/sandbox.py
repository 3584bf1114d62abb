"""Sandbox adapter: deterministic answers computed from the input, for development and tests."""
from __future__ import annotations

import re

from .base import AIProvider, check_meeting_analysis, check_project_summary


class SandboxAI(AIProvider):
    def project_summary(self, facts: dict) -> dict:
        name = facts.get("name") or "The project"
        status = facts.get("status") or "active"
        members = facts.get("members") or []
        tasks = facts.get("tasks") or []
        goals = facts.get("goals") or []
        done = [t for t in tasks if (t.get("status_value") or "") == "done"]
        open_goals = [g for g in goals if (g.get("status") or "") not in ("done", "completed", "achieved")]
        sentences = [
            f"{name} is {status} with {len(members)} team member{'s' if len(members) != 1 else ''}.",
            f"It has {len(tasks)} top-level task{'s' if len(tasks) != 1 else ''}, of which {len(done)} are done.",
            f"There {'is' if len(goals) == 1 else 'are'} {len(goals)} goal{'s' if len(goals) != 1 else ''}, "
            f"{len(open_goals)} still open.",
        ]
        if facts.get("end_date"):
            sentences.append(f"Delivery is planned to finish by {facts['end_date']}.")
        recommendations = [
            "Review open tasks and confirm owners and due dates." if len(done) < len(tasks) or not tasks
            else "Close out the finished work with the client.",
            f"Check progress on the goal '{open_goals[0]['title']}'." if open_goals
            else "Agree the next goals with the client.",
        ]
        if not members:
            recommendations.append("Add team members so work can be assigned.")
        return check_project_summary({"summary": " ".join(sentences), "recommendations": recommendations})

    def research_brief(self, page: dict) -> dict:
        title = (page.get("title") or page.get("url") or "The business").split("|")[0].strip()
        platform = page.get("platform")
        headings = page.get("headings") or []
        points = [f"Open with what {title} says about itself: {page.get('description') or 'see the site'}",
                  f"Ask how {platform} is working for them" if platform else "Ask what their site is built on"]
        if headings:
            points.append(f"Their site leads with: {', '.join(headings[:3])}")
        return {"company_summary": f"{title}: {page.get('description') or 'no description on the site'}",
                "offering": headings[:5], "platform": platform, "talking_points": points,
                "questions": ["What are this year's growth goals?", "Where does the site lose customers today?"],
                "risks": [] if platform else ["No recognised storefront platform was detected"]}

    def edit_text(self, *, mode: str, instruction: str, text: str | None = None, context: str | None = None) -> str:
        instruction_l = instruction.lower()
        if mode == "generate" or not text:
            return f"{instruction.strip().rstrip('.').capitalize()}: a first draft written for this page."
        result = re.sub(r"\s+", " ", text).strip()
        if "short" in instruction_l or "concise" in instruction_l:
            result = re.split(r"(?<=[.!?])\s+", result)[0]
        if "upper" in instruction_l:
            result = result.upper()
        elif "lower" in instruction_l:
            result = result.lower()
        if mode == "rewrite":
            result = f"In other words, {result[:1].lower()}{result[1:]}"
        elif result:
            result = result[:1].upper() + result[1:]
        return result

    def complete(self, *, prefix: str, max_tokens: int, system: str | None = None,
                 timeout: float | None = None) -> str:
        words = re.findall(r"[A-Za-z']+", prefix)
        tail = words[-1].lower() if words else "this"
        continuation = f" and the {tail} work continues as planned with the team reviewing each step together".split(" ")
        return " ".join(continuation[: max(0, max_tokens)])

    CATEGORY_WORDS = (("standup", ("standup", "stand-up", "daily")), ("one_on_one", ("one-on-one", "1:1", "catch-up")),
                      ("interview", ("interview", "candidate")), ("sales", ("proposal", "discovery", "pricing", "pitch")),
                      ("client", ("client", "status", "review")), ("internal", ("sprint", "planning", "team", "retro")))

    def analyse_meeting(self, *, title: str, summary: str, action_items: str, attendees: list[dict]) -> dict:
        text = f"{title} {summary}".lower()
        category = next((name for name, words in self.CATEGORY_WORDS if any(w in text for w in words)), "other")
        by_name = {(a.get("name") or "").strip().lower(): a.get("email") for a in attendees if a.get("name")}
        items = []
        for line in (action_items or "").splitlines():
            line = line.strip().lstrip("-*• ").strip()
            if not line:
                continue
            owner, sep, what = line.partition(":")
            email = by_name.get(owner.strip().strip("*").lower()) if sep else None
            items.append({"text": what.strip() if sep and email else line, "assignee_email": email})
        return check_meeting_analysis({"category": category, "action_items": items}, attendees)

    FIGURE_WORDS = {"spend": ("spend", "spent", "cost", "budget"), "roas": ("roas", "return"),
                    "revenue": ("revenue", "sales"), "orders": ("order",), "conversions": ("conversion",),
                    "clicks": ("click",), "impressions": ("impression", "reach"), "cpa": ("cpa", "acquisition"),
                    "ctr": ("ctr", "click-through"), "cpc": ("cpc", "per click"), "aov": ("aov", "order value")}

    def answer_from_figures(self, *, question: str, figures: dict) -> str:
        """Deterministic: the metrics the question names (else the first three), each with its change and
        target, and the largest campaign when the question asks about campaigns. A money figure names its
        `currency` when it has one ("Ad spend was AUD 300.00"); counts, percents and ratios have none."""
        text = question.lower()
        metrics = [m for m in figures.get("metrics") or [] if m.get("value") is not None]
        named = [m for m in metrics if any(w in text for w in self.FIGURE_WORDS.get(m["key"], (m["key"],)))]
        period = figures.get("period") or {}
        if not metrics:
            return (f"There are no synced figures for the {period.get('type', 'period')} from {period.get('start')} "
                    f"to {period.get('end')} yet.")
        sentences = [f"For the {period.get('type')} from {period.get('start')} to {period.get('end')}:"]
        for m in (named or metrics[:3]):
            money = f"{m['currency']} " if m.get("currency") else ""
            sentence = f"{m['label']} was {money}{m['value']:,.2f}"
            if m.get("delta_pct") is not None:
                sentence += f", {'up' if m['delta_pct'] >= 0 else 'down'} {abs(m['delta_pct']):.1f}% on the prior period"
            if m.get("target") is not None:
                sentence += (f" against a target of {money}{m['target']:,.2f} "
                             f"({m['tracking_status'].replace('_', ' ')})")
            sentences.append(sentence + ".")
        campaigns = figures.get("campaigns") or []
        if "campaign" in text and campaigns:
            top = campaigns[0]
            money = f"{top['currency']} " if top.get("currency") else ""
            sentences.append(f"The largest campaign by spend was {top['campaign_name']} ({top['platform']}) with "
                             f"{money}{top['spend']:,.2f} spent.")
        return " ".join(sentences)
