"""Session 30, a request's deadline (docs/decisions/infra.md): a range of events read page by page (at most 20 pages,
each call 15 s at most, a token exchange first) took as long as Google's pages took: 20 pages answered after 9 s
each were 180 s, past API Gateway's 29 s. Now no page is asked with less than a second of the request's 25 s left,
and a page's call is cut to what is left: the listing answers the calendar's 504 by 25 s."""
import responses

from tests.areas.calendar.test_google_live import API, _google_event, _token, live, user  # noqa: F401
from tests.core.test_request_deadline_s30 import DEADLINE, answers_after, slow  # noqa: F401


def test_a_slow_listing_of_many_pages_answers_504_by_the_deadline(api, live, user, slow):  # noqa: F811
    import json

    _token(live)
    page = json.dumps({"items": [_google_event("e1")], "nextPageToken": "more"})
    live.add_callback(responses.GET, f"{API}/calendars/primary/events", callback=answers_after(slow, 9, body=page))
    started = slow.now
    answer = api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z", as_=user)
    assert slow.now - started <= DEADLINE  # 180 s before
    assert answer.status == 504, answer.json
    assert answer.json["error"] == "Calendar provider timed out"
