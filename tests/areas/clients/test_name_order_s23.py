"""Session 23: lists ordered by a name order it as the companies and users lists do, letter case aside (the
database's C collation put "Zeta" before "alpha")."""


def test_client_profiles_are_listed_by_company_name_whatever_its_case(api, employee):
    for name in ("Zeta Pty", "alpha Co", "Beta Ltd"):
        assert api.post("/api/deals/companies", as_=employee, json={"name": name, "status": "client"}).status == 201
    listed = api.get("/api/clients", as_=employee)
    assert listed.status == 200, listed
    assert [p["company_name"] for p in listed.json["profiles"]] == ["alpha Co", "Beta Ltd", "Zeta Pty"]
