"""Session 32 (the same thing written two ways): a user's e-mail address and a squad's name in another Unicode form.
"josé" composed (NFC, U+00E9) and decomposed (NFD, "e" + U+0301) are the same text to anyone reading it, but not
to `lower()`: the unique checks and indexes let a second user or squad be made under the other form."""
from sqlalchemy import func, select

from chalicelib.core.models import Squad, User

NFC_EMAIL, NFD_EMAIL = "jos\u00e9@agency.test", "jose\u0301@agency.test"


def test_an_email_in_the_other_unicode_form_is_the_same_user(api, db, exec_user):
    first = api.post("/api/admin/users", as_=exec_user, json={"email": NFD_EMAIL, "name": "Jos\u00e9 One"})
    assert first.status == 201, first.json
    again = api.post("/api/admin/users", as_=exec_user, json={"email": NFC_EMAIL.upper(), "name": "Jos\u00e9 Two"})
    assert again.status == 409, again.json
    other = api.post("/api/admin/users", as_=exec_user, json={"email": "other@agency.test", "name": "Other"})
    moved = api.put(f"/api/admin/users/{other.json['user']['id']}", as_=exec_user, json={"email": NFD_EMAIL})
    assert moved.status == 409, moved.json
    assert first.json["user"]["email"] == NFC_EMAIL  # kept composed, as identity providers send it
    assert db.scalar(select(func.count()).select_from(User).where(User.email.in_([NFC_EMAIL, NFD_EMAIL]))) == 1
    # the token of the address as an identity provider spells it (NFC) finds the user made from the NFD spelling
    me = api.get("/api/me", as_=NFC_EMAIL)
    assert me.status == 200, me.json


def test_a_squad_name_in_the_other_unicode_form_is_409(api, db, exec_user):
    first = api.post("/api/admin/squads", as_=exec_user, json={"name": "Cre\u0301a"})
    assert first.status == 201, first.json
    again = api.post("/api/admin/squads", as_=exec_user, json={"name": "CR\u00e9A"})
    assert again.status == 409, again.json
    other = api.post("/api/admin/squads", as_=exec_user, json={"name": "Growth"}).json["squad"]
    assert api.put(f"/api/admin/squads/{other['id']}", as_=exec_user, json={"name": "cre\u0301a"}).status == 409
    assert first.json["squad"]["name"] == "Cr\u00e9a"
    assert db.scalar(select(func.count()).select_from(Squad).where(Squad.name.in_(["Cr\u00e9a", "Cre\u0301a"]))) == 1
