"""Session 30, the ledger OAuth callback reading Xero's connections (https://developer.xero.com/documentation/
guides/oauth2/auth-flow#5-check-the-tenants-youre-authorized-to-access: `tenantId` a GUID string, `tenantName` a
string): a tenantName that is no string was a 500 (`[:255]` of a number), a tenantId past the 100 characters
`connections.external_id` holds a 400 "A value is out of range or malformed" after the one-use code was spent.
Now a name that is no string is none, and an id that cannot be read is the ledger's 502."""
import pytest

from tests.providers.test_nul_ledger_s30 import TENANT, ledger_callback


@pytest.mark.parametrize("name", [12345, ["Demo"], {"name": "Demo"}])
def test_a_tenant_name_that_is_no_string_is_none(api, db, exec_user, set_env, name):
    answer = ledger_callback(api, exec_user, set_env, {"tenantId": TENANT, "tenantName": name})
    assert answer.status == 200, answer.json
    assert answer.json["connection"]["org_name"] is None


@pytest.mark.parametrize("tenant_id", ["t" * 101, 12345, {"id": TENANT}])
def test_a_tenant_id_that_cannot_be_read_is_a_502(api, db, exec_user, set_env, tenant_id):
    answer = ledger_callback(api, exec_user, set_env, {"tenantId": tenant_id, "tenantName": "Demo"})
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "The accounting ledger answered a tenantId that cannot be read"
