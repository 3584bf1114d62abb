"""Professional-network data: the interface every enrichment adapter implements."""
from __future__ import annotations

from typing import Protocol


class EnrichmentProvider(Protocol):
    def enrich_company(self, *, name: str | None, website: str | None) -> dict | None:
        """The provider's raw company record, or None when it has none."""
        ...

    def enrich_person(self, *, profile_url: str) -> dict | None:
        """The provider's raw person record for a professional-network profile URL, or None."""
        ...

    def search_person(self, *, name: str | None, email: str | None, company: str | None) -> dict | None:
        """The best matching person record of a search by name, e-mail and company, or None."""
        ...


def normalise_person(record: dict) -> dict:
    """The stored (normalised) form of a person record: the fields the service shows, PDL's names."""
    experience = record.get("experience") or []
    experience = experience if isinstance(experience, list) else []  # a list (session 30: a dict's [0] was a 500)
    skills = record.get("skills") or []
    skills = skills if isinstance(skills, list) else []  # a list of strings (session 30: list(5) was a 500)
    current = next((e for e in experience if isinstance(e, dict) and e.get("is_primary")), None) or (
        experience[0] if experience and isinstance(experience[0], dict) else {})
    company = current.get("company") if isinstance(current.get("company"), dict) else {}
    title = current.get("title") if isinstance(current.get("title"), dict) else {}
    profile = record.get("linkedin_url")
    if profile and not str(profile).startswith("http"):
        profile = f"https://{profile}"
    return {
        "provider_id": record.get("id"),
        "full_name": record.get("full_name"),
        "first_name": record.get("first_name"),
        "last_name": record.get("last_name"),
        "job_title": record.get("job_title") or title.get("name"),
        "job_company_name": record.get("job_company_name") or company.get("name"),
        "job_company_website": record.get("job_company_website") or company.get("website"),
        "location_name": record.get("location_name"),
        "industry": record.get("industry"),
        "profile_url": profile,
        "skills": skills[:30],
        "likelihood": record.get("likelihood"),
    }
