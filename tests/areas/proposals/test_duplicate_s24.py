"""Session 24 (copies audit): a duplicate lists only the source's approvers a create would accept (active users holding
proposals:update), the others left out silently; and its pricing sections read in the source's order, sections
sharing a position included (renumbered 0..n-1 in that order). docs/decisions/proposals.md."""
from tests.areas.proposals.factories import create, price
from tests.factories import grant, make_user


def _approver(db):
    user = make_user(db, access_level="manager")
    grant(db, user, "proposals", "update")
    return user


def _duplicate(api, user, pid) -> str:
    answer = api.post(f"/api/proposals/{pid}/duplicate", as_=user, json={})
    assert answer.status == 201, answer
    return answer.json["proposal"]["id"]


def _listed(api, user, pid) -> list[str]:
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["approver_ids"]


def test_duplicate_leaves_out_a_deactivated_approver_and_keeps_the_others(api, db, exec_user):
    gone, kept = _approver(db), _approver(db)
    pid = create(api, exec_user, approver_ids=[gone.id, kept.id])
    gone.is_active = False
    db.flush()
    # a create naming them is refused: they cannot approve
    assert api.post("/api/proposals", as_=exec_user, json={"title": "x", "approver_ids": [gone.id]}).status == 400
    cid = _duplicate(api, exec_user, pid)
    assert _listed(api, exec_user, cid) == [kept.id]
    assert sorted(_listed(api, exec_user, pid)) == sorted([gone.id, kept.id])  # the source is not touched


def test_duplicate_leaves_out_an_approver_who_may_no_longer_approve(api, db, exec_user):
    demoted, kept = _approver(db), _approver(db)
    pid = create(api, exec_user, approver_ids=[demoted.id, kept.id])
    grant(db, demoted, "proposals", "view")
    assert api.post("/api/proposals", as_=exec_user, json={"title": "x", "approver_ids": [demoted.id]}).status == 400
    cid = _duplicate(api, exec_user, pid)
    assert _listed(api, exec_user, cid) == [kept.id]


def test_a_duplicate_whose_only_approver_left_is_decided_by_a_manage_holder(api, db, exec_user):
    """The impact: the copy listed the deactivated approver, so submitted it waited on someone who can never decide
    and a proposals:manage holder was refused (403 "Only the proposal's listed approvers can decide")."""
    approver = _approver(db)
    pid = create(api, exec_user, approver_ids=[approver.id])
    approver.is_active = False
    db.flush()
    cid = _duplicate(api, exec_user, pid)
    assert _listed(api, exec_user, cid) == []
    assert api.post(f"/api/proposals/{cid}/submit", as_=exec_user, json={}).status == 200
    other_exec = make_user(db, access_level="executive")
    answer = api.post(f"/api/proposals/{cid}/approve", as_=other_exec, json={})
    assert answer.status == 200, answer
    assert api.get(f"/api/proposals/{cid}", as_=exec_user).json["proposal"]["status"] == "approved"


def _sections(api, user, pid) -> list[tuple]:
    return [(s["title"], s["position"], [i["description"] for i in s["items"]])
            for s in api.get(f"/api/proposals/{pid}/pricing", as_=user).json["sections"]]


def test_duplicate_keeps_the_order_of_sections_sharing_a_position(api, db, exec_user):
    pid = create(api, exec_user)
    price(api, exec_user, pid, [{"title": f"S{i}", "position": 0,
                                 "items": [{"description": f"d{i}", "unit_price": 1}]} for i in range(8)])
    source = _sections(api, exec_user, pid)
    cid = _duplicate(api, exec_user, pid)
    copy = _sections(api, exec_user, cid)
    assert [(t, items) for t, _, items in copy] == [(t, items) for t, _, items in source]
    assert [p for _, p, _ in copy] == list(range(8))  # renumbered in the order read


def test_duplicate_renumbers_distinct_positions_in_their_order(api, db, exec_user):
    pid = create(api, exec_user)
    price(api, exec_user, pid, [{"title": "Late", "position": 30, "items": [{"description": "a", "unit_price": 1}]},
                                {"title": "Early", "position": 10, "items": []},
                                {"title": "Middle", "position": 20, "items": [{"description": "b", "unit_price": 2},
                                                                              {"description": "c", "unit_price": 3}]}])
    cid = _duplicate(api, exec_user, pid)
    assert _sections(api, exec_user, cid) == [("Early", 0, []), ("Middle", 1, ["b", "c"]), ("Late", 2, ["a"])]
    pricing = api.get(f"/api/proposals/{cid}/pricing", as_=exec_user).json
    assert pricing["total_amount"] == 6
