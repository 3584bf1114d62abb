"""Every list is capped (decisions.md section 4): a config list holds at most 500 items."""
from sqlalchemy import select

from chalicelib.core.models import ConfigList, ConfigListItem


def _fill(db, key: str, count: int) -> None:
    config_list = db.scalar(select(ConfigList).where(ConfigList.key == key))
    present = len(db.scalars(select(ConfigListItem.id).where(ConfigListItem.list_id == config_list.id)).all())
    db.add_all([ConfigListItem(list_id=config_list.id, label=f"Filler {n}", value=f"filler_{n}", position=n,
                               is_system=False, is_default=False) for n in range(count - present)])
    db.flush()


def test_the_501st_item_is_refused_and_the_list_stays_at_500(api, db, exec_user):
    _fill(db, "service_type", 499)
    first = api.post("/api/config-lists/service_type/items", as_=exec_user, json={"label": "Last", "value": "last"})
    assert first.status == 201, first
    second = api.post("/api/config-lists/service_type/items", as_=exec_user, json={"label": "One more", "value": "more"})
    assert second.status == 409, second
    assert "500" in second.json["error"]
    items = api.get("/api/config-lists/service_type/items", as_=exec_user).json["items"]
    assert len(items) == 500
