"""Dates of action items: every read answers the urgency of today in ORG_TIMEZONE, whether or not the hourly
refresh has run since midnight. The day is moved as the other date tests move it: across the date line,
Pago Pago (UTC-11) is behind and Kiritimati (UTC+14) a day or two ahead at the same instant."""
from datetime import timedelta

from chalicelib.core.timeutil import org_today


def _days(set_env):
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")
    ahead = org_today()
    set_env(ORG_TIMEZONE="Pacific/Pago_Pago")
    behind = org_today()
    assert ahead > behind
    return behind, ahead


def _urgencies(answer):
    assert answer.status == 200, answer
    return {item["title"]: item["urgency"] for item in answer.json["action_items"]}


def test_reads_answer_the_new_day_before_the_refresh_runs(api, db, client, employee, set_env):
    behind, ahead = _days(set_env)  # the clock at `behind` (Pago Pago)
    made = {}
    for title, due in (("was today", behind), ("was overdue", behind - timedelta(days=1)), ("due ahead", ahead),
                       ("undated", None)):
        answer = api.post("/api/action-items", as_=employee,
                          json={"title": title, "due_date": due.isoformat() if due else None})
        assert answer.status == 201, answer
        made[title] = answer.json["action_item"]
    assert made["was today"]["urgency"] == "today" and made["due ahead"]["urgency"] != "today"
    # urgency given by hand: kept that day; on an undated item kept on the next days too
    api.patch(f"/api/action-items/{made['undated']['id']}", as_=employee, json={"urgency": "this_week"})
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("action_items_urgency", event).payload["updated"] == 0  # the job ran: all current

    set_env(ORG_TIMEZONE="Pacific/Kiritimati")  # midnight has passed; the job has not run since
    expected = {"was overdue": "overdue", "was today": "overdue", "due ahead": "today", "undated": "this_week"}
    listed = api.get("/api/action-items", as_=employee)
    assert _urgencies(listed) == expected
    assert [item["title"] for item in listed.json["action_items"]] == ["was overdue", "was today", "due ahead",
                                                                      "undated"]
    assert set(_urgencies(api.get("/api/action-items?urgency=overdue", as_=employee))) == {"was overdue",
                                                                                           "was today"}
    assert set(_urgencies(api.get("/api/action-items?urgency=today", as_=employee))) == {"due ahead"}
    counts = api.get("/api/action-items/counts", as_=employee).json
    assert (counts["overdue"], counts["today"], counts["this_week"], counts["total"]) == (2, 1, 1, 4)
    centre = api.get("/api/action-items/centre", as_=employee)
    assert centre.status == 200, centre
    assert _urgencies(centre) == expected
    assert (centre.json["counts"]["overdue"], centre.json["counts"]["today"]) == (2, 1)
    # a patch that leaves the urgency alone answers today's too
    renamed = api.patch(f"/api/action-items/{made['was today']['id']}", as_=employee, json={"title": "renamed"})
    assert renamed.json["action_item"]["urgency"] == "overdue"

    # the job then stores what the reads already answered; the reads do not change
    assert client.lambda_.invoke("action_items_urgency", event).payload["updated"] == 2
    assert client.lambda_.invoke("action_items_urgency", event).payload["updated"] == 0
    after = _urgencies(api.get("/api/action-items", as_=employee))
    assert after == {"was overdue": "overdue", "renamed": "overdue", "due ahead": "today", "undated": "this_week"}


def test_urgency_given_by_hand_lasts_the_day_it_was_given(api, db, employee, set_env):
    behind, ahead = _days(set_env)
    far = behind + timedelta(days=60)  # `normal` on either day
    item = api.post("/api/action-items", as_=employee, json={"title": "x", "due_date": far.isoformat()})
    path = f"/api/action-items/{item.json['action_item']['id']}"
    assert api.patch(path, as_=employee, json={"urgency": "today"}).json["action_item"]["urgency"] == "today"
    assert _urgencies(api.get("/api/action-items?urgency=today", as_=employee)) == {"x": "today"}
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")  # the next day: the due date's urgency again
    assert _urgencies(api.get("/api/action-items", as_=employee)) == {"x": "normal"}
    assert api.get("/api/action-items/counts", as_=employee).json["today"] == 0
