"""Session 32, audit "error bodies that name the wrong field": channel percentages that do not add up are a 400
naming the percentages the request sent (each with a value), the fields the client can change; it named
`channel_online_pct` whatever was sent, so `{"channel_instore_pct": 60}` over a saved 50 online was answered about
a field the client had not sent."""
from tests.areas.portal.conftest import make_client


def _fields(answer):
    return [d["field"] for d in answer.json["details"]]


def test_the_percentages_sent_are_named(portal, db):
    mine = make_client(db)
    assert portal.post("/questionnaire", mine, role="admin", json={"channel_online_pct": 50}).status == 200
    too_many = portal.post("/questionnaire", mine, role="admin", json={"channel_instore_pct": 60})
    assert too_many.status == 400 and too_many.json["details"] == [
        {"field": "channel_instore_pct", "message": "the channel percentages must not add up to more than 100"}]
    two = portal.post("/questionnaire", mine, role="admin", json={"channel_instore_pct": 30,
                                                                  "channel_wholesale_pct": 30})
    assert two.status == 400 and _fields(two) == ["channel_instore_pct", "channel_wholesale_pct"], two.json
    assert two.json["details"][0]["message"] == "the three channel percentages must add up to 100"
    cleared = portal.post("/questionnaire", mine, role="admin", json={"channel_online_pct": None,
                                                                      "channel_instore_pct": 101 - 1,
                                                                      "channel_wholesale_pct": 1})
    assert cleared.status == 400 and _fields(cleared) == ["channel_instore_pct", "channel_wholesale_pct"]
