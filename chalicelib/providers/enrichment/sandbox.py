"""Sandbox enrichment: deterministic records computed from the input, like People Data Labs' shapes.

A name, domain or profile containing `nodata` finds nothing (decisions.md section 7); anything else finds a
record derived from the input.
"""
from __future__ import annotations

import hashlib
import re


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "someone"


def _nodata(*values) -> bool:
    return any(value and "nodata" in value.lower() for value in values)


class SandboxEnrichment:
    def enrich_company(self, *, name: str | None, website: str | None) -> dict | None:
        if _nodata(name, website) or not (name or website):
            return None
        label = name or website
        return {"status": 200, "id": hashlib.sha1(label.lower().encode()).hexdigest()[:20], "name": label.lower(),
                "display_name": label, "website": website or f"{_slug(label)}.com", "size": "11-50",
                "employee_count": 27, "founded": 2015, "industry": "retail", "location": {"country": "australia"},
                "linkedin_url": f"linkedin.com/company/{_slug(label)}", "likelihood": 8}

    def _person(self, *, first: str, last: str | None, company: str | None, profile: str | None) -> dict:
        full = " ".join(part for part in (first, last) if part)
        slug = _slug(full)
        return {"id": hashlib.sha1((profile or full).lower().encode()).hexdigest()[:20] + "_0000",
                "full_name": full.lower(), "first_name": first.lower(), "last_name": (last or "").lower() or None,
                "job_title": "head of ecommerce", "job_company_name": (company or "independent").lower(),
                "job_company_website": f"{_slug(company)}.com" if company else None,
                "location_name": "melbourne, victoria, australia", "industry": "retail",
                "linkedin_url": (profile or f"linkedin.com/in/{slug}").removeprefix("https://").removeprefix("http://"),
                "skills": ["ecommerce", "merchandising"], "experience": [], "likelihood": 9}

    def enrich_person(self, *, profile_url: str) -> dict | None:
        if _nodata(profile_url):
            return None
        handle = profile_url.rstrip("/").rsplit("/", 1)[-1]
        parts = [p for p in re.split(r"[-_.]", handle) if p and not p.isdigit()] or ["someone"]
        return self._person(first=parts[0], last=" ".join(parts[1:]) or None, company=None, profile=profile_url)

    def search_person(self, *, name: str | None, email: str | None, company: str | None) -> dict | None:
        if _nodata(name, email, company) or not (name or email):
            return None
        words = (name or email.split("@")[0].replace(".", " ")).split()
        return self._person(first=words[0], last=" ".join(words[1:]) or None, company=company, profile=None)
