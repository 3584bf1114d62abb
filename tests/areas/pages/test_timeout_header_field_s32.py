"""Session 32, audit "error bodies that name the wrong field": a client timeout header that is no number of
milliseconds is a 400 naming the header in `details`, as every other request header refused with a 400 is named
(the portal's X-Portal-* headers); it answered the error alone, the one such 400 without details."""
import pytest

from tests.factories import make_user


@pytest.mark.parametrize("header", ["soon", "-5", "nan"])
def test_a_bad_client_timeout_names_the_header(api, db, header):
    user = make_user(db, name="Una Run")
    answer = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"},
                      headers={"X-Request-Timeout-Ms": header})
    assert answer.status == 400 and answer.json.get("details") == [
        {"field": "X-Request-Timeout-Ms", "message": "must be a number of milliseconds"}], answer.json
