"""Session 29: the proposal's viewer session is read from the Cookie header pair by pair (core.auth.cookie_value),
as the staff session is: a browser sending another site cookie that http.cookies.SimpleCookie cannot parse (an
analytics or consent cookie holding a space, a quote or JSON) before ours was asked for the password again."""
import pytest

from tests.areas.proposals.factories import sent
from tests.areas.proposals.test_public import PUBLIC, cookie_of, share


@pytest.mark.parametrize("before", ['consent={"ads": false}', "theme=dark mode", 'half="open', "_ga=GA1.1.1; a,=1"])
def test_a_viewer_session_is_read_beside_other_site_cookies(api, exec_user, before):
    pid = sent(api, exec_user)
    token = share(api, exec_user, pid, share_password="s3cret pass")
    session = cookie_of(api.post(f"{PUBLIC}/{token}/verify", json={"password": "s3cret pass"}))
    answer = api.get(f"{PUBLIC}/{token}", headers={"Cookie": f"{before}; {session}"})
    assert answer.json["proposal"]["title"] == "Website rebuild", answer
    assert api.get(f"{PUBLIC}/{token}", headers={"Cookie": before}).json == {"password_required": True}
