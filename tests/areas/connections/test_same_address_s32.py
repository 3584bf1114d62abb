"""Session 32 (parity audit: a rule kept on one write path and not another). E-mail addresses are kept composed
(Unicode NFC) and lower-cased (admin, session 32: user create and update, the CLI, the token's claim); the user-mapping
sync writes `ledger_id` / `planner_id` by matching a provider's person to a user by address, and compared the two
lower-cased only: a payroll employee whose address the provider spells decomposed ("jose\u0301@...") was no match for
the user stored composed ("jos\u00e9@..."), and kept no ledger id."""
from chalicelib.areas.connections.models import UserMapping
from chalicelib.providers.ledger.sandbox import SandboxLedger
from chalicelib.providers.planner.sandbox import SandboxPlanner
from tests.factories import make_user

SYNC = "/api/admin/connections/user-mappings/sync"
COMPOSED, DECOMPOSED = "jos\u00e9@agency.test", "jose\u0301@agency.test"


def test_a_person_spelled_decomposed_by_the_provider_is_matched_to_the_user_stored_composed(api, db, exec_user,
                                                                                              monkeypatch):
    jose = make_user(db, name="Jos\u00e9", email=COMPOSED)
    monkeypatch.setattr(SandboxLedger, "list_employees",
                        lambda self: [{"id": "EMP-jose", "email": DECOMPOSED, "name": "Jose"}])
    monkeypatch.setattr(SandboxPlanner, "list_people",
                        lambda self: [{"id": "PER-jose", "email": " Jose\u0301@Agency.test ", "name": "Jose"}])
    synced = api.post(SYNC, as_=exec_user)
    assert synced.status == 200, synced.json
    mapping = db.get(UserMapping, jose.id, populate_existing=True)
    assert mapping is not None and (mapping.ledger_id, mapping.planner_id) == ("EMP-jose", "PER-jose")
    assert synced.json["ledger_matched"] == 1 and synced.json["planner_matched"] == 1


def test_a_user_stored_decomposed_before_session_32_is_still_matched(api, db, exec_user, monkeypatch):
    """No migration rewrote the addresses stored before: one kept decomposed is matched to the provider's composed
    spelling as well."""
    jose = make_user(db, name="Jos\u00e9", email=DECOMPOSED)
    monkeypatch.setattr(SandboxLedger, "list_employees",
                        lambda self: [{"id": "EMP-jose", "email": COMPOSED, "name": "Jose"}])
    monkeypatch.setattr(SandboxPlanner, "list_people", lambda self: [])
    assert api.post(SYNC, as_=exec_user).status == 200
    mapping = db.get(UserMapping, jose.id, populate_existing=True)
    assert mapping is not None and mapping.ledger_id == "EMP-jose"
