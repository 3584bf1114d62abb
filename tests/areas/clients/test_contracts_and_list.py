"""Staff side of client profiles and contracts (issue 16 item 6; decisions.md section 6; tool deals):
GET /api/clients, POST /api/clients/{company_id}/profile, /api/contracts list, detail, create, update."""
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry as History
from tests.areas.deals.factories import make_company
from tests.factories import grant, make_user


def _client(api, user, name, **profile):
    company = api.post("/api/deals/companies", as_=user, json={"name": name, "status": "client"}).json["company"]
    if profile:
        assert api.put(f"/api/clients/{company['id']}/profile", as_=user, json=profile).status == 200
    return company["id"]


def test_profile_list_with_names_and_filters(api, db, employee):
    manager = make_user(db, name="Dee Manager", access_level="manager")
    beta = _client(api, employee, "Beta", client_group="Group", delivery_manager_id=manager.id, dashboard_enabled=True)
    alpha = _client(api, employee, "Alpha", client_group="Group")
    _client(api, employee, "Gamma")
    make_company(db, name="Prospect")  # no profile
    listed = api.get("/api/clients", as_=employee)
    assert listed.status == 200, listed
    assert [p["company_name"] for p in listed.json["profiles"]] == ["Alpha", "Beta", "Gamma"]
    assert listed.json["total"] == 3 and listed.json["offset"] == 0
    first = listed.json["profiles"][1]
    assert (first["company_id"], first["delivery_manager_name"], first["dashboard_enabled"]) == (beta, "Dee Manager", 1)
    profile = api.get(f"/api/clients/{beta}/profile", as_=employee).json["profile"]
    assert first == {**profile, "company_name": "Beta", "delivery_manager_name": "Dee Manager"}  # the profile's fields
    by = lambda q: [p["company_id"] for p in api.get(f"/api/clients?{q}", as_=employee).json["profiles"]]  # noqa: E731
    assert by("client_group=Group") == [alpha, beta]
    assert by(f"delivery_manager_id={manager.id}") == [beta]
    assert by("dashboard_enabled=true") == [beta] and len(by("dashboard_enabled=0")) == 2
    assert by("limit=1&offset=1") == [beta]
    assert api.get("/api/clients?limit=0", as_=employee).status == 400
    assert api.get("/api/clients?dashboard_enabled=maybe", as_=employee).status == 400
    grant(db, employee, "deals", "none")
    assert api.get("/api/clients", as_=employee).status == 403


def test_an_empty_client_group_filter_is_no_filter(api, db, employee):
    """`?client_group=` (a screen's "all groups") lists every profile, as the other lists' empty text filters do; it
    matched client_group = '' and answered nothing (paging and filters audit)."""
    _client(api, employee, "Alpha", client_group="Group")
    _client(api, employee, "Beta")
    for query in ("client_group=", "client_group=%20"):
        listed = api.get(f"/api/clients?{query}", as_=employee)
        assert (listed.status, listed.json["total"]) == (200, 2), listed


def test_profile_list_costs_constant_statements(api, db, exec_user, count_queries):
    def cost(n):
        for i in range(n):
            _client(api, exec_user, f"Client {i}")
        with count_queries() as counter:
            assert api.get("/api/clients", as_=exec_user).status == 200
        return counter.count

    assert cost(5) == cost(100)


def test_create_profile_makes_the_company_a_client(api, db, employee):
    manager = make_user(db, access_level="manager")
    prospect = make_company(db, name="Prospect")
    made = api.post(f"/api/clients/{prospect.id}/profile", as_=employee, json={
        "dashboard_enabled": True, "delivery_manager_id": manager.id, "client_group": "G"})
    assert made.status == 201, made
    assert (made.json["profile"]["dashboard_enabled"], made.json["profile"]["delivery_manager_id"],
            made.json["profile"]["client_group"]) == (1, manager.id, "G")
    company = api.get(f"/api/deals/companies/{prospect.id}", as_=employee).json["company"]
    assert company["status"] == "client"
    assert api.post(f"/api/clients/{prospect.id}/profile", as_=employee, json={}).status == 409
    assert api.post("/api/clients/missing/profile", as_=employee, json={}).status == 404
    other = make_company(db)
    bad = api.post(f"/api/clients/{other.id}/profile", as_=employee, json={"delivery_manager_id": "nobody"})
    assert bad.status == 400
    # nothing half-written: the company stayed a prospect, without a profile
    assert api.get(f"/api/deals/companies/{other.id}", as_=employee).json["company"]["status"] == "prospect"
    assert api.get(f"/api/clients/{other.id}/profile", as_=employee).status == 404
    grant(db, employee, "deals", "view")
    assert api.post(f"/api/clients/{other.id}/profile", as_=employee, json={}).status == 403


def test_contract_lifecycle(api, db, employee, exec_user):
    company = make_company(db, name="Acme")
    body = {"title": " Master services ", "company_id": company.id, "document_url": "https://docs.example/msa.pdf",
            "signers": [{"name": "Ann Client", "email": "ann@acme.test"}]}
    made = api.post("/api/contracts", as_=employee, json=body)
    assert made.status == 201, made
    contract = made.json["contract"]
    assert (contract["title"], contract["status"], contract["company_name"], contract["created_by"]) == (
        "Master services", "draft", "Acme", employee.id)
    assert contract["signers"] == [{"name": "Ann Client", "email": "ann@acme.test", "signed_at": None}]
    cid = contract["id"]
    signed = api.put(f"/api/contracts/{cid}", as_=employee, json={
        "status": "signed", "signers": [{"name": "Ann Client", "email": "ann@acme.test",
                                         "signed_at": "2026-11-20T09:30:00+10:00"}]})
    assert signed.status == 200, signed
    assert signed.json["contract"]["status"] == "signed"
    assert signed.json["contract"]["signers"][0]["signed_at"] == "2026-11-19T23:30:00Z"
    assert api.get(f"/api/contracts/{cid}", as_=exec_user).json["contract"]["status"] == "signed"
    actions = db.scalars(select(History.action).where(History.entity_type == "contract", History.entity_id == cid)
                         .order_by(History.created_at)).all()
    assert list(actions) == ["created", "updated"]
    assert api.get("/api/contracts/missing", as_=employee).status == 404
    assert api.put("/api/contracts/missing", as_=employee, json={"status": "sent"}).status == 404
    for bad in ({"title": ""}, {"status": "lost"}, {"company_id": "nope"}, {"signers": [{"name": "A"}]},
                {"signers": [{"name": "A", "email": "not-an-email"}]}, {"document_url": "ftp://x"},
                {"title": "x", "proposal_id": "nope"}):
        assert api.post("/api/contracts", as_=employee, json={"title": "T", **bad}).status == 400, bad
    assert api.put(f"/api/contracts/{cid}", as_=employee, json={"title": None}).status == 400
    grant(db, employee, "deals", "view")
    assert api.post("/api/contracts", as_=employee, json={"title": "T"}).status == 403
    assert api.put(f"/api/contracts/{cid}", as_=employee, json={"status": "sent"}).status == 403
    assert api.get(f"/api/contracts/{cid}", as_=employee).status == 200


def test_contract_list_filters_and_proposal_scope(api, db, employee, exec_user):
    from tests.areas.proposals.factories import create as create_proposal

    acme, other = make_company(db, name="Acme"), make_company(db, name="Other")
    own = create_proposal(api, employee)
    hidden = create_proposal(api, exec_user)
    first = api.post("/api/contracts", as_=employee, json={"title": "A", "company_id": acme.id, "proposal_id": own})
    assert first.status == 201, first
    # a proposal out of the caller's scope is refused as if it did not exist
    refused = api.post("/api/contracts", as_=employee, json={"title": "B", "proposal_id": hidden})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "proposal_id"
    api.post("/api/contracts", as_=employee, json={"title": "C", "company_id": other.id, "status": "sent"})
    listed = lambda q="": [c["title"] for c in api.get(f"/api/contracts?{q}", as_=employee).json["contracts"]]  # noqa: E731
    assert listed() == ["C", "A"]  # newest first
    assert listed(f"company_id={acme.id}") == ["A"] and listed(f"proposal_id={own}") == ["A"]
    assert listed("status=sent") == ["C"]
    assert api.get("/api/contracts?status=lost", as_=employee).status == 400


def test_contract_list_costs_constant_statements(api, db, exec_user, count_queries):
    def cost(n):
        for i in range(n):
            company = make_company(db, name=f"Company {i}")
            api.post("/api/contracts", as_=exec_user, json={"title": f"C{i}", "company_id": company.id})
        with count_queries() as counter:
            assert api.get("/api/contracts", as_=exec_user).status == 200
        return counter.count

    assert cost(5) == cost(100)


def test_contract_made_by_a_proposal_acceptance_is_in_history(api, db, exec_user):
    """docs/decisions/clients.md: contract create and every change write history; the contract a proposal's
    acceptance makes (listed like the others) is created too, with no staff actor (the client accepted)."""
    from tests.areas.proposals.factories import sent

    company = make_company(db, name="Acme")
    pid = sent(api, exec_user, company_id=company.id)
    token = api.put(f"/api/proposals/{pid}/share", as_=exec_user, json={"share_enabled": True}).json["share_token"]
    accepted = api.post(f"/api/proposals/public/{token}/accept", json={"name": "Ann Client", "email": "ann@acme.test"})
    assert accepted.status == 200, accepted
    contract_id = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]["contract_id"]
    listed = api.get(f"/api/contracts?proposal_id={pid}", as_=exec_user).json["contracts"]
    assert [(c["id"], c["status"]) for c in listed] == [(contract_id, "signed")]
    entries = db.execute(select(History.action, History.actor_id, History.changes).where(
        History.entity_type == "contract", History.entity_id == contract_id)).all()
    assert [(action, actor) for action, actor, _ in entries] == [("created", None)]
    assert entries[0][2] == {"title": listed[0]["title"], "status": "signed", "company_id": company.id}


def test_a_contract_is_put_back_as_read_when_its_proposal_is_gone_or_hidden(api, db, employee, exec_user):
    """docs/decisions/clients.md: proposal_id is checked when it changes. A contract whose proposal was deleted since
    (contracts.proposal_id has no key), or whose proposal the caller cannot see, is saved as it was read."""
    from tests.areas.proposals.factories import create as create_proposal

    company = make_company(db, name="Acme")

    def put_back(contract_id, user, **changes):
        read = api.get(f"/api/contracts/{contract_id}", as_=user).json["contract"]
        return api.put(f"/api/contracts/{contract_id}", as_=user, json={
            "title": read["title"], "company_id": read["company_id"], "proposal_id": read["proposal_id"], **changes})

    gone = create_proposal(api, exec_user)
    made = api.post("/api/contracts", as_=exec_user, json={"title": "MSA", "company_id": company.id, "proposal_id": gone})
    assert made.status == 201, made
    cid = made.json["contract"]["id"]
    assert api.delete(f"/api/proposals/{gone}", as_=exec_user).status == 200
    cancelled = put_back(cid, exec_user, status="cancelled")
    assert cancelled.status == 200, cancelled  # was 400 "proposal_id must be a proposal you can see"
    assert (cancelled.json["contract"]["status"], cancelled.json["contract"]["proposal_id"]) == ("cancelled", gone)
    # a deals editor who cannot see the contract's proposal saves the contract as read
    hidden = create_proposal(api, exec_user)
    other = api.post("/api/contracts", as_=exec_user, json={"title": "SOW", "proposal_id": hidden}).json["contract"]
    assert api.get(f"/api/proposals/{hidden}", as_=employee).status == 404
    sent = put_back(other["id"], employee, status="sent")
    assert sent.status == 200 and sent.json["contract"]["status"] == "sent", sent
    # a change of proposal_id is still checked: to a proposal the caller cannot see, or to the deleted one
    for contract_id, bad in ((cid, hidden), (other["id"], gone)):
        refused = api.put(f"/api/contracts/{contract_id}", as_=employee, json={"proposal_id": bad})
        assert refused.status == 400 and refused.json["details"][0]["field"] == "proposal_id", (bad, refused)
