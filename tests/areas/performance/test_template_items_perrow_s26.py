"""Session 26 (audit of statements per row): a review template's save wrote the items it keeps with the ORM's bulk
update by primary key, an executemany that pg8000 sends one row at a time (docs/decisions.md, "Bulk writes"): 50
items kept cost 50 UPDATEs. The statements the driver runs are now the same at 5 items and at 50."""


def _template(api, user, size):
    created = api.post("/api/performance/templates", as_=user, json={
        "name": "T", "items": [{"area": "A", "label": f"K{i}"} for i in range(size)]})
    assert created.status == 201, created
    return created.json["template"]


def test_a_template_s_kept_items_cost_the_same_statements_at_5_and_50(api, exec_user, driver_statements):
    counts = {}
    for size in (5, 50):
        template = _template(api, exec_user, size)
        items = [{"id": item["id"], "area": item["area"], "label": item["label"] + "!", "is_mandatory": True,
                  "sort_order": size - n} for n, item in enumerate(template["items"])]
        statements, response = driver_statements(
            lambda: api.put(f"/api/performance/templates/{template['id']}", as_=exec_user, json={"items": items}))
        assert response.status == 200, response
        saved = {item["id"]: item for item in response.json["template"]["items"]}
        assert {item_id: (item["label"], item["is_mandatory"], item["sort_order"]) for item_id, item in saved.items()} \
            == {item["id"]: (item["label"], 1, item["sort_order"]) for item in items}
        counts[size] = len(statements)
    assert counts[5] == counts[50], counts
