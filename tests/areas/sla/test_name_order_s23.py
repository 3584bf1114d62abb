"""Session 23: SLA policies are listed by name as the companies and users lists are, letter case aside (the
database's C collation put "Zeta" before "alpha")."""


def test_sla_policies_are_listed_by_name_whatever_its_case(api, exec_user):
    for name in ("Zeta", "alpha", "Beta"):
        assert api.post("/api/sla/policies", as_=exec_user, json={"name": name}).status == 201
    listed = api.get("/api/sla/policies", as_=exec_user)
    assert listed.status == 200, listed
    assert [p["name"] for p in listed.json["policies"]] == ["alpha", "Beta", "Zeta"]
