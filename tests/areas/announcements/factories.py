"""Factories for the announcements area: plain functions that add, flush and return."""
from __future__ import annotations

import itertools
from contextlib import contextmanager

import responses

from chalicelib.areas.announcements.models import Announcement
from chalicelib.providers.calendar.live import clear_token_cache
from tests.factories import add_row

_seq = itertools.count(1)


def make_announcement(db, **overrides) -> Announcement:
    n = next(_seq)
    values = {"title": f"Announcement {n}", "content": f"Body {n}", "category": "company"}
    return add_row(db, Announcement, values, overrides)


@contextmanager
def live_team_calendar(set_env):
    """The live calendar (Google) with recorded answers: the service account and the team calendar
    (team@group.calendar.google.com) set, the token cache cleared before and after, and the token exchange answered.
    Yields the `responses` mock, which asserts that every answer added to it is asked for."""
    from tests.areas.calendar.test_google_live import PEM, SA

    set_env(CALENDAR_MODE="live", CALENDAR_SERVICE_ACCOUNT_EMAIL=SA, CALENDAR_PRIVATE_KEY=PEM.replace("\n", "\\n"),
            CALENDAR_TEAM_CALENDAR_ID="team@group.calendar.google.com")
    clear_token_cache()
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add(responses.POST, "https://oauth2.googleapis.com/token",
                 json={"access_token": "ya29.t", "expires_in": 3600, "token_type": "Bearer"})
        yield mock
    clear_token_cache()
