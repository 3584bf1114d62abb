"""A ledger account code is at most 10 characters, Xero's Account.Code maximum (session 28's provider-limits audit;
Xero's accounting API document: "Customer defined alpha numeric account code e.g 200 or SALES (max length = 10)"): a
longer one was taken and every push of a line carrying it was refused by Xero, a 502 long after the code was typed."""
from tests.factories import config_item


def test_a_mapping_rule_s_account_code_past_ten_characters_is_refused(api, db, exec_user):
    design = config_item(db, "service_type", "design")
    path = f"/api/invoices/mapping-rules/{design.id}"
    refused = api.put(path, as_=exec_user, json={"ledger_account_code": "SALES-DESIGN"})
    assert refused.status == 400, refused
    assert refused.json["details"][0]["field"] == "ledger_account_code"
    assert api.put(path, as_=exec_user, json={"ledger_account_code": "SALESDSGN1"}).status == 200
