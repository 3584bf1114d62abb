"""Session 31 (invariants audit): a template soft-disabled (DELETE while clients use it) stays so; deleting it
again changes nothing and records nothing (it recorded another `disabled` entry claiming `is_active` went from 1 to
0, and moved its updated_at)."""
from sqlalchemy import select

from chalicelib.areas.onboarding.models import OnboardingTemplate
from chalicelib.areas.onboarding.service import ENTITY
from chalicelib.core.models import HistoryEntry
from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE, template


def _entries(db, template_id, action):
    return [e.changes for e in db.scalars(select(HistoryEntry).where(
        HistoryEntry.entity_type == ENTITY, HistoryEntry.entity_id == template_id, HistoryEntry.action == action))]


def _updated_at(db, template_id):
    db.expire_all()
    return db.get(OnboardingTemplate, template_id).updated_at


def test_deleting_a_disabled_template_again_records_nothing(api, db, exec_user):
    tid = template(api, exec_user, "In use")["template"]
    company = make_company(db)
    assert api.post(f"/api/clients/{company.id}/onboarding", as_=exec_user, json={"template_id": tid}).status == 201
    assert api.delete(f"{BASE}/{tid}", as_=exec_user).json == {"ok": True, "soft_disabled": True}
    stamp = _updated_at(db, tid)
    again = api.delete(f"{BASE}/{tid}", as_=exec_user)
    assert again.status == 200 and again.json == {"ok": True, "soft_disabled": True}
    assert _entries(db, tid, "disabled") == [{"is_active": {"from": 1, "to": 0}}]
    assert _updated_at(db, tid) == stamp


def test_deleting_a_template_disabled_by_patch_records_no_false_transition(api, db, exec_user):
    tid = template(api, exec_user, "Patched off")["template"]
    company = make_company(db)
    api.post(f"/api/clients/{company.id}/onboarding", as_=exec_user, json={"template_id": tid})
    assert api.patch(f"{BASE}/{tid}", as_=exec_user, json={"is_active": False}).json["template"]["is_active"] == 0
    stamp = _updated_at(db, tid)
    assert api.delete(f"{BASE}/{tid}", as_=exec_user).json == {"ok": True, "soft_disabled": True}
    assert _entries(db, tid, "disabled") == []
    assert _updated_at(db, tid) == stamp
    # enabled again, a delete disables it (and says so) as before
    assert api.patch(f"{BASE}/{tid}", as_=exec_user, json={"is_active": True}).status == 200
    assert api.delete(f"{BASE}/{tid}", as_=exec_user).json == {"ok": True, "soft_disabled": True}
    assert _entries(db, tid, "disabled") == [{"is_active": {"from": 1, "to": 0}}]
