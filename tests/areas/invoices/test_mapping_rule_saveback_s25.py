"""Session 25 (save-back audit): a mapping rule read and PUT back unchanged keeps its updated_at; a changed
ledger_account_code or description moves it."""
from datetime import timedelta

from sqlalchemy import text

from chalicelib.core.ids import utcnow
from tests.factories import config_item


def _rule(api, db, user):
    design = config_item(db, "service_type", "design")
    made = api.put(f"/api/invoices/mapping-rules/{design.id}", as_=user,
                   json={"ledger_account_code": "200", "description": "Design"})
    assert made.status == 200, made
    db.execute(text("UPDATE invoice_mapping_rules SET updated_at = :aged "
                    "WHERE service_type_id = :id"), {"aged": utcnow() - timedelta(days=1), "id": design.id})
    db.commit()
    rules = api.get("/api/invoices/mapping-rules", as_=user).json["rules"]
    return [rule for rule in rules if rule["service_type_id"] == design.id][0]


def test_mapping_rule_sent_back_keeps_updated_at(api, db, exec_user):
    rule = _rule(api, db, exec_user)
    same = api.put(f"/api/invoices/mapping-rules/{rule['service_type_id']}", as_=exec_user, json=rule)
    assert same.status == 200, same
    assert same.json["rule"] == rule


def test_a_changed_description_moves_updated_at(api, db, exec_user):
    rule = _rule(api, db, exec_user)
    changed = api.put(f"/api/invoices/mapping-rules/{rule['service_type_id']}", as_=exec_user,
                      json={**rule, "description": "Design work"})
    assert changed.status == 200, changed
    assert changed.json["rule"]["description"] == "Design work"
    assert changed.json["rule"]["updated_at"] > rule["updated_at"]
