"""The caller's identity headers of the live orchestrator and business agents (session 22): http.client sends
header values as Latin-1, so a name or an e-mail address outside it ("Łukasz Nowak", "李华", an emoji) made every
live call a 500 (UnicodeEncodeError, not a requests exception) and the actions agent's unstar fail. The values
are percent-encoded UTF-8 (urllib.parse.quote: ASCII letters, digits, spaces and the usual punctuation of a name
or an address kept readable); a ValueError / UnicodeError while building or sending the request is the 502."""
from urllib.parse import unquote

import pytest
import responses
import urllib3.util.connection

from tests.factories import grant, make_user

ORCH = "http://orchestrator.agency.test"
ACTIONS = "http://actions.agency.test"
NAMES = ["Plain Ascii", "\u0141ukasz Nowak", "\u674e\u534e", "Ana \U0001F600", "Zo\u00eb O'Brien-Smith"]


@pytest.fixture
def unreachable(set_env, monkeypatch):
    """Live mode through the real transport (http.client encodes the headers before it connects); every
    connection attempt is refused, so nothing leaves the machine."""
    set_env(ORCHESTRATOR_MODE="live", ORCHESTRATOR_URL=ORCH, ORCHESTRATOR_TOKEN="orch-token-123456",
            ORCHESTRATOR_TIMEOUT_SECONDS="2", BUSINESS_AGENTS=f"actions={ACTIONS}")

    def refuse(*_a, **_k):
        raise ConnectionRefusedError("no network in tests")

    monkeypatch.setattr(urllib3.util.connection, "create_connection", refuse)
    monkeypatch.setattr("urllib3.connection.connection.create_connection", refuse, raising=False)


@pytest.mark.parametrize("name", NAMES)
def test_any_user_name_reaches_the_wire_and_an_unreachable_orchestrator_is_502(api, db, unreachable, name):
    user = make_user(db, access_level="employee", name=name, email="\u0142ukasz@agency.test")
    grant(db, user, "tasks", "manage")
    for method, path in (("GET", "/api/orchestrator/status"), ("POST", "/api/business-agents/actions/command")):
        answer = api.request(method, path, as_=user, json={"command": "x"} if method == "POST" else None)
        assert answer.status == 502, (name, path, answer.status, answer.json)
        assert "cannot be reached (ConnectionError)" in answer.json["error"]


def _orchestrator():
    from chalicelib.providers.orchestrator.live import HttpOrchestrator

    return HttpOrchestrator(base_url=ORCH, token="t", agents=[{"id": "actions", "name": "Actions", "url": ACTIONS}])


@pytest.mark.parametrize("name", NAMES)
def test_identity_headers_are_latin1_and_decode_back(name):
    caller = {"id": "u1", "name": name, "email": "\u0142ukasz@b\u00fccher.example", "access_level": "employee"}
    with responses.RequestsMock() as mock:
        mock.post(f"{ACTIONS}/command", json={"ok": True})
        mock.get(f"{ORCH}/status", json={"ok": True})
        _orchestrator().agent("actions", "POST", "/command", caller=caller, body={})
        _orchestrator().orchestrator("GET", "/status", caller=caller)
        for call in mock.calls:
            headers = call.request.headers
            for header in ("X-WMS-User-Name", "X-WMS-User-Email", "X-WMS-User-Id", "X-WMS-Access-Level"):
                headers[header].encode("latin-1")
                assert "\r" not in headers[header] and "\n" not in headers[header]
            assert unquote(headers["X-WMS-User-Name"]) == name
            assert unquote(headers["X-WMS-User-Email"]) == caller["email"]
            assert headers["X-WMS-User-Id"] == "u1" and headers["X-WMS-Access-Level"] == "employee"


def test_ascii_names_and_addresses_stay_readable():
    caller = {"id": "01J-user", "name": "Pat O'Neil-Smith, Jr.", "email": "pat.o+ops@agency.test"}
    with responses.RequestsMock() as mock:
        mock.get(f"{ORCH}/status", json={"ok": True})
        _orchestrator().orchestrator("GET", "/status", caller=caller)
        headers = mock.calls[0].request.headers
    assert headers["X-WMS-User-Name"] == "Pat O'Neil-Smith, Jr."
    assert headers["X-WMS-User-Email"] == "pat.o+ops@agency.test"
    assert headers["X-WMS-User-Id"] == "01J-user"


def test_a_percent_sign_in_a_name_is_encoded_so_decoding_is_unambiguous():
    with responses.RequestsMock() as mock:
        mock.get(f"{ORCH}/status", json={"ok": True})
        _orchestrator().orchestrator("GET", "/status", caller={"id": "u1", "name": "100%20 Sure"})
        value = mock.calls[0].request.headers["X-WMS-User-Name"]
    assert value == "100%2520 Sure" and unquote(value) == "100%20 Sure"


@pytest.mark.parametrize("error", [UnicodeEncodeError("latin-1", "\u0141", 0, 1, "ordinal not in range(256)"),
                                   ValueError("Invalid header value")])
def test_an_encoding_failure_while_sending_is_502(error):
    from chalicelib.core.errors import BadGateway

    with responses.RequestsMock() as mock:
        mock.get(f"{ORCH}/status", body=error)
        with pytest.raises(BadGateway, match=f"could not be sent \\({type(error).__name__}\\)"):
            _orchestrator().orchestrator("GET", "/status", caller={"id": "u1"})


def test_unstar_reaches_the_actions_agent_for_a_non_latin1_name(db, set_env):
    """send_unstar recorded `unstar_failed (UnicodeEncodeError)` for such a caller; now the agent gets the call."""
    from chalicelib.areas.agents.service_proxy import send_unstar

    set_env(ORCHESTRATOR_MODE="live", ORCHESTRATOR_URL=ORCH, BUSINESS_AGENTS=f"actions={ACTIONS}")
    user = make_user(db, name="\u674e\u534e")
    caller = {"id": user.id, "email": user.email, "name": user.name, "access_level": "employee"}
    args = {"action_item_id": "01JITEM", "source_module": "chat", "source_type": "message", "source_id": "m1",
            "user_id": user.id}
    with responses.RequestsMock() as mock:
        mock.post(f"{ACTIONS}/command", json={"ok": True})
        assert send_unstar(caller, args) is None
        value = mock.calls[0].request.headers["X-WMS-User-Name"]
    value.encode("latin-1")  # as http.client sends it; `responses` does not encode
    assert unquote(value) == "\u674e\u534e"


def test_edge_spaces_and_control_characters_are_encoded():
    """requests refuses a header value with leading whitespace, and a CR or LF would end the header."""
    name = " Pat\r\nX-Injected: 1 "
    with responses.RequestsMock() as mock:
        mock.get(f"{ORCH}/status", json={"ok": True})
        _orchestrator().orchestrator("GET", "/status", caller={"id": "u1", "name": name})
        value = mock.calls[0].request.headers["X-WMS-User-Name"]
    assert value == "%20Pat%0D%0AX-Injected: 1%20" and unquote(value) == name
