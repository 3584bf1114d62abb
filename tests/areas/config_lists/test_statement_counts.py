"""Config lists: every list a route answers costs the same statements at 5 and at 100 rows
(docs/area-contract.md, "Reads"). The list of lists is tested in test_config_lists.py."""
from .factories import make_item, make_list


def test_items_of_a_list(api, db, exec_user, count_queries):
    config_list = make_list(db)
    counts, done = [], 0
    for total in (5, 100):
        for index in range(done, total):
            make_item(db, config_list, position=index)
        done = total
        with count_queries() as counter:
            answer = api.get(f"/api/config-lists/{config_list.key}/items", as_=exec_user)
        assert answer.status == 200 and len(answer.json["items"]) == total, answer
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
