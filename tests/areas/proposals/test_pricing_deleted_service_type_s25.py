"""Session 25 (config audit): a pricing naming a service type since deleted can be saved back as read; only a
service type id not already on the proposal's items is checked against the `service_type` list (as budgets' and
invoices' lines check only a changed one). docs/decisions/proposals.md, Pricing. Since session 25 a service type in
use is not deleted (409, docs/decisions/config_lists.md): these tests delete it as it was deleted before that rule
(`_deleted_earlier`), the dead reference a proposal may still hold."""
from sqlalchemy import delete

from chalicelib.core.models import ConfigListItem
from tests.areas.proposals.factories import create, price
from tests.factories import config_item


def _deleted_earlier(api, user, db, item_id):
    """The item deleted as the config lists route deleted an item in use before session 25 (it now answers 409)."""
    assert api.delete(f"/api/config-lists/service_type/items/{item_id}", as_=user).status == 409
    db.execute(delete(ConfigListItem).where(ConfigListItem.id == item_id))
    db.commit()


def _service_type(api, user, value):
    made = api.post("/api/config-lists/service_type/items", as_=user, json={"label": value.upper(), "value": value})
    assert made.status == 201, made
    return made.json["item"]["id"]


def _as_read(api, user, pid):
    read = api.get(f"/api/proposals/{pid}/pricing", as_=user).json
    return [{"title": s["title"], "items": [{k: i[k] for k in ("description", "quantity", "unit_price",
                                                              "service_type_id", "notes")} for i in s["items"]]}
            for s in read["sections"]]


def test_a_pricing_naming_a_since_deleted_service_type_saves_back(api, db, exec_user):
    seo = _service_type(api, exec_user, "seo_s25")
    pid = create(api, exec_user)
    price(api, exec_user, pid, [{"title": "Build", "items": [
        {"description": "SEO", "quantity": 1, "unit_price": 100, "service_type_id": seo},
        {"description": "Design", "quantity": 2, "unit_price": 50}]}])
    _deleted_earlier(api, exec_user, db, seo)
    sections = _as_read(api, exec_user, pid)
    assert sections[0]["items"][0]["service_type_id"] == seo
    sections[0]["items"][1]["quantity"] = 3  # another item edited, the dead reference sent back as stored
    again = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": sections})
    assert again.status == 200, again
    read = api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json
    assert read["sections"][0]["items"][0]["service_type_id"] == seo
    assert read["total_amount"] == 250.0
    # moved to another section it is still the stored reference
    moved = [{"title": "Other", "items": [sections[0]["items"][0]]}]
    assert api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": moved}).status == 200


def test_a_new_reference_to_a_deleted_or_wrong_list_item_is_still_refused(api, db, exec_user):
    kept = _service_type(api, exec_user, "kept_s25")
    dead = _service_type(api, exec_user, "dead_s25")
    assert api.delete(f"/api/config-lists/service_type/items/{dead}", as_=exec_user).status == 200
    wrong_list = config_item(db, "task_status", "todo").id
    pid = create(api, exec_user)
    price(api, exec_user, pid, [{"title": "Build", "items": [
        {"description": "Kept", "quantity": 1, "unit_price": 100, "service_type_id": kept}]}])
    for wrong in (dead, wrong_list, "nope"):
        bad = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [
            {"title": "Build", "items": [
                {"description": "Kept", "quantity": 1, "unit_price": 100, "service_type_id": kept},
                {"description": "New", "quantity": 1, "unit_price": 5, "service_type_id": wrong}]}]})
        assert bad.status == 400, bad
        assert [d["field"] for d in bad.json["details"]] == ["sections.0.items.1.service_type_id"], bad
    assert _as_read(api, exec_user, pid)[0]["items"] == [
        {"description": "Kept", "quantity": 1.0, "unit_price": 100.0, "service_type_id": kept, "notes": None}]


def test_a_dead_reference_stored_on_another_proposal_is_not_carried_over(api, db, exec_user):
    """Only the proposal's own items count: an id dead everywhere but stored on another proposal is a 400."""
    seo = _service_type(api, exec_user, "other_s25")
    first = create(api, exec_user)
    price(api, exec_user, first, [{"title": "Build", "items": [
        {"description": "SEO", "quantity": 1, "unit_price": 100, "service_type_id": seo}]}])
    _deleted_earlier(api, exec_user, db, seo)
    second = create(api, exec_user)
    bad = api.put(f"/api/proposals/{second}/pricing", as_=exec_user, json={"sections": [
        {"title": "Build", "items": [{"description": "SEO", "quantity": 1, "unit_price": 1, "service_type_id": seo}]}]})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "sections.0.items.0.service_type_id", bad
