"""A client group typed in another spelling joins the group (session 32): the label is kept in the spelling the
other profiles already use (letter case aside, inner spaces collapsed), so the group filter and the portal's
sister-company check, which compare labels exactly, see one group. Before, "acme  group" made a second group."""


def _client(api, employee, name):
    return api.post("/api/deals/companies", as_=employee, json={"name": name, "status": "client"}).json["company"]["id"]


def _group(api, employee, company_id, label):
    answer = api.put(f"/api/clients/{company_id}/profile", as_=employee, json={"client_group": label})
    assert answer.status == 200, answer.json
    return answer.json["profile"]["client_group"]


def test_a_group_typed_in_another_spelling_takes_the_groups_spelling(api, db, employee):
    first, second, third = (_client(api, employee, name) for name in ("Acme", "Acme Labs", "Other"))
    assert _group(api, employee, first, "Acme Group") == "Acme Group"
    assert _group(api, employee, second, "  acme   GROUP ") == "Acme Group"
    assert _group(api, employee, third, "Acme Groups") == "Acme Groups"  # another label stays another group
    listed = api.get("/api/clients?client_group=Acme Group", as_=employee)
    assert listed.status == 200, listed.json
    assert sorted(p["company_id"] for p in listed.json["profiles"]) == sorted([first, second])


def test_the_only_profile_of_a_group_may_change_its_spelling(api, db, employee):
    company_id = _client(api, employee, "Acme")
    assert _group(api, employee, company_id, "Acme Group") == "Acme Group"
    assert _group(api, employee, company_id, "ACME  group") == "ACME group"  # no other profile holds it
