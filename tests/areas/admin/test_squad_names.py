"""Squad names are unique case-insensitively (issue 20 item 4): projects refer to squads by name."""
from sqlalchemy import func, select

from chalicelib.core.models import Squad


def test_a_squad_name_differing_only_in_case_is_409(api, db, exec_user):
    first = api.post("/api/admin/squads", as_=exec_user, json={"name": "Design"})
    assert first.status == 201, first
    for name in ("design", "DESIGN", " Design "):
        response = api.post("/api/admin/squads", as_=exec_user, json={"name": name})
        assert response.status == 409, (name, response)
        assert response.json["error"]
    other = api.post("/api/admin/squads", as_=exec_user, json={"name": "Growth"}).json["squad"]
    assert api.put(f"/api/admin/squads/{other['id']}", as_=exec_user, json={"name": "dEsIgN"}).status == 409
    assert api.put(f"/api/admin/squads/{other['id']}", as_=exec_user, json={"name": "growth"}).status == 200
    assert db.scalar(select(func.count()).select_from(Squad).where(func.lower(Squad.name) == "design")) == 1
