"""A QBR saved back as read (the staff editor PUTs the whole record) keeps its section ids and its `updated_at`:
the sections are replaced, and the QBR's `updated_at` moves, only on a real change (session 25, save-back audit)."""
import pytest

from tests.areas.portal.conftest import make_client

SECTIONS = [{"section_key": "wins", "title": "Wins", "content": "a"},
            {"section_key": "internal", "title": "Internal", "content": "b", "portal_visible": False},
            {"section_key": "next", "title": "Next", "content": ""}]


def _made(api, db, exec_user):
    company = make_client(db)
    base = f"/api/clients/{company.id}/qbrs"
    made = api.post(base, as_=exec_user, json={"title": "Q", "quarter": "2026-Q1", "sections": SECTIONS})
    assert made.status == 201, made
    return base, made.json["qbr"]


def test_qbr_saveback_keeps_section_ids_and_updated_at(api, db, exec_user):
    base, qbr = _made(api, db, exec_user)
    answer = api.put(f"{base}/{qbr['id']}", as_=exec_user, json=qbr)
    assert answer.status == 200, answer
    got = answer.json["qbr"]
    assert [s["id"] for s in got["sections"]] == [s["id"] for s in qbr["sections"]]
    assert got["updated_at"] == qbr["updated_at"]
    assert api.get(f"{base}/{qbr['id']}", as_=exec_user).json["qbr"] == qbr


def test_qbr_saveback_of_sections_alone_keeps_them(api, db, exec_user):
    base, qbr = _made(api, db, exec_user)
    answer = api.put(f"{base}/{qbr['id']}", as_=exec_user, json={"sections": qbr["sections"]})
    assert answer.status == 200, answer
    assert answer.json["qbr"] == qbr


def test_qbr_field_change_keeps_section_ids_and_moves_updated_at(api, db, exec_user):
    base, qbr = _made(api, db, exec_user)
    answer = api.put(f"{base}/{qbr['id']}", as_=exec_user, json=qbr | {"title": "Q renamed"})
    assert answer.status == 200, answer
    got = answer.json["qbr"]
    assert got["title"] == "Q renamed"
    assert [s["id"] for s in got["sections"]] == [s["id"] for s in qbr["sections"]]
    assert got["updated_at"] > qbr["updated_at"]


def _changed(sections, how):
    sections = [dict(s) for s in sections]
    if how == "order":
        return [sections[1], sections[0], sections[2]]
    if how == "removed":
        return sections[:2]
    if how == "added":
        return sections + [{"section_key": "extra", "title": "Extra", "content": "c"}]
    key, value = how
    sections[0][key] = value
    return sections


@pytest.mark.parametrize("how", [("section_key", "results"), ("title", "Big wins"), ("content", "a2"),
                                 ("portal_visible", 0), "order", "removed", "added"])
def test_qbr_section_change_replaces_sections_and_moves_updated_at(api, db, exec_user, how):
    base, qbr = _made(api, db, exec_user)
    sent = _changed(qbr["sections"], how)
    answer = api.put(f"{base}/{qbr['id']}", as_=exec_user, json=qbr | {"sections": sent})
    assert answer.status == 200, answer
    got = answer.json["qbr"]
    fields = ("section_key", "title", "content", "portal_visible")
    assert [[s[k] for k in fields] for s in got["sections"]] == [
        [s.get(k, {"portal_visible": 1}.get(k)) for k in fields] for s in sent]
    assert [s["position"] for s in got["sections"]] == list(range(len(sent)))
    assert got["updated_at"] > qbr["updated_at"]
    assert api.get(f"{base}/{qbr['id']}", as_=exec_user).json["qbr"] == got
