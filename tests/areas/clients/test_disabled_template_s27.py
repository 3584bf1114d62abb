"""Session 27: a client profile names only an active onboarding template when it sets or changes one.

A missing template is a 400 naming `onboarding_template_id` (the foreign key of onboarding_0002, mapped by the core);
a disabled one was saved (200), so the profile named a template its onboarding would never start from. Now it is a
400 naming the field too, nothing saved; a profile sent back as read, its template disabled since, saves."""
from tests.areas.deals.factories import make_company

BASE = "/api/admin/onboarding-templates/client"


def _client(api, user):
    made = api.post("/api/deals/companies", as_=user, json={"name": "Acme", "status": "client"})
    assert made.status == 201, made
    return made.json["company"]["id"]


def _disabled(api, user, name="Old"):
    made = api.post(BASE, as_=user, json={"name": name})
    assert made.status == 201, made
    tid = made.json["template"]["id"]
    assert api.patch(f"{BASE}/{tid}", as_=user, json={"is_active": False}).status == 200
    return tid


def test_a_profile_naming_a_disabled_template_is_refused(api, db, exec_user):
    tid = _disabled(api, exec_user)
    path = f"/api/clients/{_client(api, exec_user)}/profile"
    refused = api.put(path, as_=exec_user, json={"onboarding_template_id": tid, "client_group": "G"})
    assert refused.status == 400, (refused.status, refused.json)
    assert [d["field"] for d in refused.json["details"]] == ["onboarding_template_id"], refused.json
    profile = api.get(path, as_=exec_user).json["profile"]
    assert (profile["onboarding_template_id"], profile["client_group"]) == (None, None)
    # as a missing one is (its foreign key's 400; SQLite's key error names no column, so no details there)
    missing = api.put(path, as_=exec_user, json={"onboarding_template_id": "no-such-template"})
    assert missing.status == 400, (missing.status, missing.json)
    if db.get_bind().dialect.name == "postgresql":
        assert [d["field"] for d in missing.json["details"]] == ["onboarding_template_id"], missing.json


def test_a_new_profile_naming_a_disabled_template_is_refused(api, db, exec_user):
    tid = _disabled(api, exec_user)
    company = make_company(db, status="prospect")
    refused = api.post(f"/api/clients/{company.id}/profile", as_=exec_user, json={"onboarding_template_id": tid})
    assert refused.status == 400, (refused.status, refused.json)
    assert [d["field"] for d in refused.json["details"]] == ["onboarding_template_id"], refused.json
    assert api.get(f"/api/clients/{company.id}/profile", as_=exec_user).status == 404  # still a prospect
    assert api.get(f"/api/deals/companies/{company.id}", as_=exec_user).json["company"]["status"] == "prospect"


def test_a_profile_sent_back_with_its_template_disabled_since_saves(api, db, exec_user):
    made = api.post(BASE, as_=exec_user, json={"name": "Used"}).json["template"]["id"]
    path = f"/api/clients/{_client(api, exec_user)}/profile"
    assert api.put(path, as_=exec_user, json={"onboarding_template_id": made}).status == 200
    assert api.delete(f"{BASE}/{made}", as_=exec_user).json == {"ok": True, "soft_disabled": True}
    read = api.get(path, as_=exec_user).json["profile"]
    saved = api.put(path, as_=exec_user, json={**{k: read[k] for k in ("dashboard_enabled", "delivery_manager_id",
                                                                        "onboarding_template_id", "portal_visibility")},
                                               "client_group": "G"})
    assert saved.status == 200, (saved.status, saved.json)
    assert (saved.json["profile"]["onboarding_template_id"], saved.json["profile"]["client_group"]) == (made, "G")
    # and it can be cleared
    cleared = api.put(path, as_=exec_user, json={"onboarding_template_id": None})
    assert cleared.status == 200 and cleared.json["profile"]["onboarding_template_id"] is None
