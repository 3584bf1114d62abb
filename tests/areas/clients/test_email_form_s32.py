"""Session 32 (audit "a rule enforced on one write path and not on another"): an e-mail address is kept in Unicode's
composed form (NFC) where admin stores a user's (docs/decisions/admin.md), but a contact's address (deals) and a
contract signer's (the staff contract routes, and the contract a proposal's public accept makes) were stored as typed.
The client portal lists a contract to a company whose contact signed it, comparing the two addresses letter case
aside: "jose\u0301@client.test" (decomposed, as some keyboards type it) and "jos\u00e9@client.test" read the same,
yet the contract was not listed."""
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture

COMPOSED, DECOMPOSED = "jos\u00e9@client.test", "jose\u0301@client.test"


def _contact(api, user, company, email):
    made = api.post("/api/deals/contacts", as_=user, json={"first_name": "Jos", "company_id": company.id,
                                                           "email": email})
    assert made.status == 201, made
    return made.json["contact"]


def _contract(api, user, company, email):
    made = api.post("/api/contracts", as_=user, json={"title": "MSA", "company_id": company.id, "status": "signed",
                                                      "signers": [{"name": "Jos", "email": email}]})
    assert made.status == 201, made
    return made.json["contract"]


def test_a_decomposed_signer_address_finds_the_contact(api, portal, db, exec_user):
    company = make_client(db)
    _contact(api, exec_user, company, COMPOSED)
    contract = _contract(api, exec_user, company, DECOMPOSED)
    assert [c["id"] for c in portal.get("/contracts", company).json["contracts"]] == [contract["id"]]
    assert contract["signers"][0]["email"] == COMPOSED


def test_a_decomposed_contact_address_finds_the_signer(api, portal, db, exec_user):
    company = make_client(db)
    contact = _contact(api, exec_user, company, DECOMPOSED)
    contract = _contract(api, exec_user, company, COMPOSED)
    assert [c["id"] for c in portal.get("/contracts", company).json["contracts"]] == [contract["id"]]
    assert contact["email"] == COMPOSED


def test_an_update_stores_the_composed_form_too(api, db, exec_user):
    company = make_client(db)
    contact = _contact(api, exec_user, company, "a@client.test")
    changed = api.put(f"/api/deals/contacts/{contact['id']}", as_=exec_user, json={"email": DECOMPOSED})
    assert changed.status == 200 and changed.json["contact"]["email"] == COMPOSED, changed
    contract = _contract(api, exec_user, company, "a@client.test")
    changed = api.put(f"/api/contracts/{contract['id']}", as_=exec_user,
                      json={"signers": [{"name": "Jos", "email": DECOMPOSED}]})
    assert changed.status == 200 and changed.json["contract"]["signers"][0]["email"] == COMPOSED, changed


def test_the_contract_of_a_public_accept_finds_the_contact(api, portal, db, exec_user):
    from tests.areas.proposals.factories import PUBLIC, sent_and_shared

    company = make_client(db)
    _contact(api, exec_user, company, COMPOSED)
    _pid, token = sent_and_shared(api, exec_user, company_id=company.id)
    answer = api.post(f"{PUBLIC}/{token}/accept", json={"name": "Jos", "email": DECOMPOSED})
    assert answer.status == 200, answer
    listed = portal.get("/contracts", company).json["contracts"]
    assert [c["signers"][0]["email"] for c in listed] == [COMPOSED]
