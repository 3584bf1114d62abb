"""The planner sandbox (issue 15 item 5): people from the active users, bookings kept in the database."""
import pytest
from sqlalchemy import func, select

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.providers.planner import get_planner
from chalicelib.providers.planner.models import PlannerSandboxBooking
from chalicelib.providers.planner.sandbox import SANDBOX_ABSENCE_EVENT_ID
from tests.factories import make_user


def test_sandbox_people_and_bookings(db):
    ann = make_user(db, email="ann@agency.test", name="Ann")
    make_user(db, email="zed@noplanner.test")
    planner = get_planner(db)
    people = {p["email"]: p for p in planner.list_people()}
    assert "ann@agency.test" in people and "zed@noplanner.test" not in people
    person = people["ann@agency.test"]["id"]
    # a leave booking is an absence booking: it names the absence event (the sandbox refuses one without)
    booking = planner.create_booking(person_id=person, started_on="2026-05-04", ended_on="2026-05-06", note="Leave",
                                     event_id=SANDBOX_ABSENCE_EVENT_ID)
    stored = db.get(PlannerSandboxBooking, booking["id"])
    assert stored.person_id == person and stored.minutes_per_day == 480
    with pytest.raises(BadGateway):
        planner.create_booking(person_id="nobody", started_on="2026-05-04", ended_on="2026-05-06")
    with pytest.raises(BadGateway):
        planner.create_booking(person_id=person, started_on="2026-05-06", ended_on="2026-05-04")
    planner.delete_booking(booking["id"])
    planner.delete_booking(booking["id"])  # already gone: not an error
    assert db.scalar(select(func.count(PlannerSandboxBooking.id))) == 0
    assert ann.id


def test_modes(db, set_env):
    set_env(PLANNER_MODE="off")
    with pytest.raises(ServiceUnavailable):
        get_planner(db)
    set_env(PLANNER_MODE="live")
    with pytest.raises(ServiceUnavailable, match="not connected"):
        get_planner(db)
    set_env(PLANNER_API_TOKEN="tok-from-settings", PLANNER_ORGANIZATION_ID="7")
    planner = get_planner(db)
    assert planner.api_token == "tok-from-settings" and planner.organization_id == "7"
