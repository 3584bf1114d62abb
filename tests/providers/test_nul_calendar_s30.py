"""Session 30, calendar texts with a NUL or a lone surrogate: see tests/providers/test_nul_texts_s30.py."""
import json

import responses

from tests.providers.test_calendar_wire import API, _invitation, live, user  # noqa: F401 - fixtures
from tests.providers.test_nul_texts_s30 import LONE, NUL, strict

# ---------------------------------------------------------------- calendar (Google)

def test_an_event_summary_with_a_lone_surrogate_is_answered_as_strict_json(api, live, user):  # noqa: F811
    event = {**_invitation([{"email": "dana@agency.test", "self": True, "responseStatus": "accepted"}]),
             "summary": f"Quarterly{NUL} review {LONE}", "location": f"Room {LONE}"}
    live.add(responses.GET, f"{API}/calendars/primary/events", json={"items": [event]})
    answer = api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-08T00:00:00Z", as_=user)
    assert answer.status == 200, answer.json
    text = json.dumps(strict(answer), ensure_ascii=False)
    assert "Quarterly review \ufffd" in text and "Room \ufffd" in text
