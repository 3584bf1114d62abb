"""Session 29 (another area's record, seen with that area's permission): docs/decisions/clients.md says a contract's
`proposal_id` is "a proposal the caller can see: 400 naming it otherwise, so a hidden proposal is not revealed". The
proposal was checked by its row scope alone: a head whose `proposals` permission is none (an override; a head's
scope holds every proposal) tied a contract to any proposal, learning which ids exist, though every proposal route
answers them 403. Now the proposal needs `proposals:view` as well."""
from tests.areas.proposals.factories import create as create_proposal
from tests.factories import grant, make_user


def test_a_contract_cannot_name_a_proposal_of_a_caller_who_may_not_view_proposals(api, db, exec_user):
    head = make_user(db, access_level="head")
    proposal = create_proposal(api, exec_user)
    grant(db, head, "proposals", "none")  # an override: this head may not view proposals
    assert api.get(f"/api/proposals/{proposal}", as_=head).status == 403
    refused = api.post("/api/contracts", as_=head, json={"title": "MSA", "proposal_id": proposal})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["proposal_id"]
    made = api.post("/api/contracts", as_=head, json={"title": "MSA"})
    assert made.status == 201, made
    moved = api.put(f"/api/contracts/{made.json['contract']['id']}", as_=head, json={"proposal_id": proposal})
    assert moved.status == 400, moved
    assert [d["field"] for d in moved.json["details"]] == ["proposal_id"]
    # with proposals:view the same head ties it
    grant(db, head, "proposals", "view")
    tied = api.post("/api/contracts", as_=head, json={"title": "MSA 2", "proposal_id": proposal})
    assert tied.status == 201, tied
    assert tied.json["contract"]["proposal_id"] == proposal
