"""Sandbox place search: a small deterministic gazetteer, filtered by the query and the country."""
from __future__ import annotations

from .base import MAX_RESULTS

PLACES = (
    ("N1001", "Sydney Opera House, Bennelong Point, Sydney NSW 2000, Australia", "au"),
    ("W1002", "Sydney Town Hall, 483 George Street, Sydney NSW 2000, Australia", "au"),
    ("W1003", "Melbourne Convention Centre, 1 Convention Centre Place, Melbourne VIC 3006, Australia", "au"),
    ("N1004", "Brisbane City Hall, 64 Adelaide Street, Brisbane QLD 4000, Australia", "au"),
    ("W1005", "Sydney Cricket Ground, Moore Park NSW 2021, Australia", "au"),
    ("N1006", "Sydney Harbour Bridge, Sydney NSW 2000, Australia", "au"),
    ("N1007", "Auckland Town Hall, 301 Queen Street, Auckland 1010, New Zealand", "nz"),
    ("W1008", "Sydney Street, London SW3 6NU, United Kingdom", "gb"),
    ("N1009", "Central Park, New York, NY 10024, United States", "us"),
    ("W1010", "Royal Exhibition Building, Carlton VIC 3053, Australia", "au"),
    ("R1011", "Sydney Olympic Park, NSW 2127, Australia", "au"),
    ("R1012", "North Sydney, NSW 2060, Australia", "au"),
)


class SandboxPlaces:
    def search(self, query: str, *, country: str | None) -> list[dict]:
        words = query.lower().split()
        found = [(pid, label) for pid, label, cc in PLACES
                 if all(word in label.lower() for word in words) and (country is None or cc == country)]
        return [{"id": pid, "label": label} for pid, label in found[:MAX_RESULTS]]
