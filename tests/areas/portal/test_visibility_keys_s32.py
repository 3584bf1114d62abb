"""The client profile's `portal_visibility` hides the QBR sections of a kind (`{section_key: false}`; document 3:
"internal sections filtered by portal_visibility settings"). Both the key and the section's `section_key` are typed
by staff on different pages; session 32 (audit "a value staff type freely"): a section is hidden whatever the
letter case and surrounding spaces of either ("Financials" was shown to a client whose profile hid "financials")."""
import pytest

from tests.areas.portal.conftest import make_client


@pytest.mark.parametrize("hidden_key, section_key", [
    ("financials", "Financials"), ("Financials ", "financials"), ("FINANCIALS", " financials"),
])
def test_a_section_hidden_in_another_spelling_is_not_shown(api, portal, db, exec_user, hidden_key, section_key):
    company = make_client(db)
    profile = api.put(f"/api/clients/{company.id}/profile", as_=exec_user,
                      json={"portal_visibility": {hidden_key: False, "results": True}})
    assert profile.status == 200, profile
    base = f"/api/clients/{company.id}/qbrs"
    created = api.post(base, as_=exec_user, json={"title": "Q3 review", "quarter": "2030-Q3", "sections": [
        {"section_key": "results", "title": "Results", "content": "Revenue up"},
        {"section_key": section_key, "title": "Money", "content": "Margin thin"}]})
    assert created.status == 201, created
    assert api.post(f"{base}/{created.json['qbr']['id']}/present", as_=exec_user).status == 200
    shown = portal.get("/qbrs", company).json["qbrs"]
    assert [s["title"] for s in shown[0]["sections"]] == ["Results"]
    assert "Margin thin" not in str(shown)


def test_a_key_shown_in_one_spelling_and_hidden_in_another_hides(api, portal, db, exec_user):
    """Two spellings of one key that disagree: the section is hidden (the safe reading of a contradiction)."""
    company = make_client(db, visibility={"Financials": True, "financials": False})
    base = f"/api/clients/{company.id}/qbrs"
    created = api.post(base, as_=exec_user, json={"title": "Q3", "quarter": "2030-Q3", "sections": [
        {"section_key": "FINANCIALS", "title": "Money", "content": "Margin thin"}]})
    assert api.post(f"{base}/{created.json['qbr']['id']}/present", as_=exec_user).status == 200
    assert portal.get("/qbrs", company).json["qbrs"][0]["sections"] == []
