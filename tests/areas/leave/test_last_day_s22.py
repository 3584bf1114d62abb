"""A leave request may not end on 9999-12-31 (session 22's input audit): its integrations take the day after its
end (the calendar's exclusive end, the planner's walk over its days), so an executive's request, approved at once,
kept `OverflowError` in its integration errors for good."""
from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES
from tests.factories import make_squad, make_user


def _request(api, user, start, end):
    return api.post("/api/leave/requests", as_=user, json={
        "leave_type_id": LEAVE_TYPES[0]["id"], "leave_type_name": "Annual Leave", "start_date": start,
        "end_date": end, "total_hours": 7.6})


def test_a_request_ending_on_the_last_day_is_a_400_and_nothing_is_stored(api, db):
    boss = make_user(db, access_level="executive", squad_id=make_squad(db, chat_channel_id="C_TEAM").id)
    refused = _request(api, boss, "9999-12-30", "9999-12-31")
    assert refused.status == 400 and refused.json["details"][0]["field"] == "end_date", refused
    assert db.query(LeaveRequest).filter(LeaveRequest.user_id == boss.id).count() == 0


def test_a_request_ending_the_day_before_is_kept(api, db):
    user = make_user(db)
    assert _request(api, user, "9999-12-29", "9999-12-30").status == 201
