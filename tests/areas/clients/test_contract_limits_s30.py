"""Session 30 (limits audit): a contract's stated limits at their boundary (docs/decisions/clients.md): `signers` at
most 20 (replaced as a whole on update), `document_url` at most 2000 characters, the title 1 to 300 (trimmed, the
column's length). Exactly the limit is taken; one more is a 400 naming the field, on create and on update."""
import pytest

from tests.areas.deals.factories import make_company


def _signers(n: int) -> list[dict]:
    return [{"name": f"Signer {i}", "email": f"signer{i}@acme.test"} for i in range(n)]


def _url(length: int) -> str:
    prefix = "https://docs.example/"
    return prefix + "d" * (length - len(prefix))


@pytest.fixture
def contract_id(api, db, employee):
    made = api.post("/api/contracts", as_=employee, json={"title": "MSA", "company_id": make_company(db).id})
    assert made.status == 201, made
    return made.json["contract"]["id"]


@pytest.mark.parametrize("field, at_most, too_many", [
    ("signers", _signers(20), _signers(21)),
    ("document_url", _url(2000), _url(2001)),
    ("title", "t" * 300, "t" * 301),
])
def test_a_contract_takes_exactly_its_limit_and_refuses_one_more(api, employee, contract_id, field, at_most,
                                                                 too_many):
    made = api.post("/api/contracts", as_=employee, json={"title": "MSA", field: at_most})
    assert made.status == 201, made
    updated = api.put(f"/api/contracts/{contract_id}", as_=employee, json={field: at_most})
    assert updated.status == 200, updated
    for contract in (made.json["contract"], updated.json["contract"]):
        kept = contract[field]
        assert (len(kept), kept[-1]) == (len(at_most), at_most[-1] if field != "signers" else {**at_most[-1],
                                                                                            "signed_at": None})
    for answer in (api.post("/api/contracts", as_=employee, json={"title": "MSA", field: too_many}),
                   api.put(f"/api/contracts/{contract_id}", as_=employee, json={field: too_many})):
        assert answer.status == 400, answer
        assert {d["field"].split(".")[0] for d in answer.json["details"]} == {field}
