"""Meetings at /api/meetings (document 3): list with filters, paging, search and scope; detail; transcript;
match and unmatch; action item status; stats."""
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.meetings.factories import make_meeting
from tests.areas.projects.factories import make_project
from tests.factories import make_squad, make_user


def _ids(api, user, query=""):
    answer = api.get(f"/api/meetings{query}", as_=user)
    assert answer.status == 200, answer
    return [m["id"] for m in answer.json["meetings"]]


def test_scope_by_access_level(api, db, employee):
    squad = make_squad(db)
    manager = make_user(db, access_level="manager")
    squad.manager_id = manager.id
    member = make_user(db, squad_id=squad.id)
    outsider_manager = make_user(db, access_level="manager")
    head = make_user(db, access_level="head")
    executive = make_user(db, access_level="executive")
    mine = make_meeting(db, attendees=[employee])
    theirs = make_meeting(db, attendees=[member])
    organised = make_meeting(db, organizer_email=employee.email.upper())
    assert set(_ids(api, employee)) == {mine.id, organised.id}
    assert _ids(api, member) == [theirs.id]
    assert _ids(api, manager) == [theirs.id]
    assert _ids(api, outsider_manager) == []
    for user in (head, executive):
        assert set(_ids(api, user)) == {mine.id, theirs.id, organised.id}
    for user in (member, outsider_manager):
        assert api.get(f"/api/meetings/{mine.id}", as_=user).status == 404
        assert api.get(f"/api/meetings/{mine.id}/transcript", as_=user).status == 404
        assert api.post(f"/api/meetings/{mine.id}/unmatch", as_=user).status == 404
    assert api.get("/api/meetings/stats", as_=employee).json == {"unmatched_count": 2}
    assert api.get("/api/meetings/stats", as_=head).json == {"unmatched_count": 3}


def test_filters_search_and_paging(api, db, exec_user):
    now = datetime.now(timezone.utc)
    someone = make_user(db)
    project = make_project(db)
    a = make_meeting(db, title="Acme kickoff", category="client", meeting_date=now - timedelta(days=1),
                     entity_type="project", entity_id=project.id, attendees=[someone])
    b = make_meeting(db, title="Standup", summary="Blockers on ACME api", category="standup",
                     meeting_date=now - timedelta(days=3))
    c = make_meeting(db, title="Retro", category="internal", meeting_date=now - timedelta(days=10))
    d = make_meeting(db, title="Undated", meeting_date=None)
    assert _ids(api, exec_user) == [a.id, b.id, c.id, d.id]  # newest first, undated last
    assert _ids(api, exec_user, "?category=standup") == [b.id]
    assert _ids(api, exec_user, "?search=acme") == [a.id, b.id]  # title and summary, any case
    assert _ids(api, exec_user, "?unmatched=true") == [b.id, c.id, d.id]
    assert _ids(api, exec_user, "?unmatched=0") == [a.id]
    assert _ids(api, exec_user, f"?entity_type=project&entity_id={project.id}") == [a.id]
    assert _ids(api, exec_user, f"?attendee_user_id={someone.id}") == [a.id]
    since = (now - timedelta(days=5)).date().isoformat()
    assert _ids(api, exec_user, f"?date_from={since}") == [a.id, b.id]
    until = (now - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert _ids(api, exec_user, f"?date_to={until}") == [b.id, c.id]
    page = api.get("/api/meetings?per_page=2&page=2", as_=exec_user).json
    assert ([m["id"] for m in page["meetings"]], page["total"], page["page"], page["per_page"]) == ([c.id, d.id], 4, 2, 2)
    for params, ids, total in (("?per_page=3", [a.id, b.id, c.id], 4), ("?per_page=4", [a.id, b.id, c.id, d.id], 4),
                               ("?per_page=5", [a.id, b.id, c.id, d.id], 4), ("?per_page=2&page=3", [], 4)):
        page = api.get(f"/api/meetings{params}", as_=exec_user).json  # counted, or the first page holds them all
        assert ([m["id"] for m in page["meetings"]], page["total"]) == (ids, total), params
    default = api.get("/api/meetings", as_=exec_user).json
    assert (default["page"], default["per_page"]) == (1, 20)
    for bad in ("per_page=51", "per_page=0", "page=0", "category=party", "entity_type=task", "unmatched=maybe",
                "date_from=yesterday"):
        assert api.get(f"/api/meetings?{bad}", as_=exec_user).status == 400, bad


def test_detail_transcript_match_and_action_items(api, db, employee, set_env):
    other = make_user(db, name="Olive Other")
    meeting = make_meeting(db, id="sandbox-note-2", title="Sprint planning", attendees=[employee, other],
                           items=[("Split the epic", employee), ("Book a room", None)])
    path = f"/api/meetings/{meeting.id}"
    detail = api.get(path, as_=employee).json["meeting"]
    assert detail["match"] is None and detail["title"] == "Sprint planning"
    assert sorted((a["user_id"], a["user_name"]) for a in detail["attendees"]) == sorted(
        [(employee.id, employee.name), (other.id, "Olive Other")])
    assert [(i["text"], i["assignee_id"], i["status"]) for i in detail["action_items"]] == [
        ("Split the epic", employee.id, "pending"), ("Book a room", None, "pending")]

    first = api.get(f"{path}/transcript", as_=employee)
    assert first.status == 200 and first.json["transcript"]["meeting_id"] == meeting.id
    assert first.json["transcript"]["sentences"][0]["text"] == "Welcome to Sprint planning."
    set_env(MEETNOTES_API_KEY="invalid-key")  # the provider would refuse now: the cache answers
    again = api.get(f"{path}/transcript", as_=employee)
    assert again.status == 200 and again.json == first.json
    unknown = make_meeting(db, id="not-at-the-provider", attendees=[employee])
    set_env(MEETNOTES_API_KEY=None)
    assert api.get(f"/api/meetings/{unknown.id}/transcript", as_=employee).status == 404
    set_env(MEETNOTES_API_KEY="invalid-key")
    refused = api.get(f"/api/meetings/{unknown.id}/transcript", as_=employee)
    assert refused.status == 502 and refused.json["error"]

    company, contact, deal = make_company(db, name="Acme"), make_contact(db, first_name="Cy", last_name="Dee"), make_deal(db)
    project = make_project(db, name="Website", members=[employee])
    for entity_type, entity_id, name in (("company", company.id, "Acme"), ("contact", contact.id, "Cy Dee"),
                                         ("deal", deal.id, deal.title), ("project", project.id, "Website")):
        matched = api.post(f"{path}/match", as_=employee, json={"entity_type": entity_type, "entity_id": entity_id})
        assert matched.status == 200, matched
        assert matched.json["meeting"]["match"] == {"entity_type": entity_type, "entity_id": entity_id, "entity_name": name}
    hidden = make_project(db)
    for body in ({"entity_type": "company", "entity_id": "nope"}, {"entity_type": "project", "entity_id": hidden.id},
                 {"entity_type": "task", "entity_id": "x"}, {"entity_type": "deal"}):
        refused = api.post(f"{path}/match", as_=employee, json=body)
        assert refused.status == 400, (body, refused)
    assert api.get("/api/meetings/stats", as_=employee).json == {"unmatched_count": 1}
    cleared = api.post(f"{path}/unmatch", as_=employee).json["meeting"]
    assert cleared["match"] is None and cleared["entity_id"] is None
    assert api.get("/api/meetings/stats", as_=employee).json == {"unmatched_count": 2}

    item_id = detail["action_items"][0]["id"]
    db.add(ActionItem(title="Split the epic", assigned_to=employee.id, source_module="meetings", source_id=item_id,
                      urgency="normal", is_completed=False))
    db.flush()
    done = api.post(f"{path}/action-items/{item_id}/status", as_=employee, json={"status": "done"})
    assert done.status == 200 and done.json["action_item"]["status"] == "done"
    centre = db.scalar(select(ActionItem).where(ActionItem.source_id == item_id))
    db.refresh(centre)
    assert centre.is_completed is True
    api.post(f"{path}/action-items/{item_id}/status", as_=employee, json={"status": "pending"})
    db.refresh(centre)
    assert centre.is_completed is False
    assert api.post(f"{path}/action-items/{item_id}/status", as_=employee, json={"status": "closed"}).status == 400
    assert api.post(f"{path}/action-items/nope/status", as_=employee, json={"status": "done"}).status == 404


def test_list_costs_constant_statements(api, db, exec_user, count_queries):
    """A full page of 5 and of 50 cost the same (a first page that is not full skips its count: on SQLite,
    where each read is a statement of its own, one fewer)."""
    def cost(n, per_page):
        people = [make_user(db) for _ in range(3)]
        for _ in range(n):
            make_meeting(db, attendees=people, items=[("Do it", people[0]), ("Do that", None)])
        with count_queries() as counter:
            answer = api.get(f"/api/meetings?per_page={per_page}", as_=exec_user)
        assert answer.status == 200 and len(answer.json["meetings"]) == per_page < answer.json["total"]
        return counter.count

    assert cost(6, 5) == cost(100, 50)


@pytest.mark.parametrize("level", ["employee", "manager"])
def test_list_scope_costs_constant_statements(api, db, count_queries, level):
    viewer = make_user(db, access_level=level)

    def cost(n, per_page):
        for _ in range(n):
            make_meeting(db, attendees=[viewer, make_user(db)])
        with count_queries() as counter:
            answer = api.get(f"/api/meetings?per_page={per_page}", as_=viewer)
        assert answer.status == 200 and len(answer.json["meetings"]) == per_page < answer.json["total"]
        return counter.count

    assert cost(6, 5) == cost(100, 50)


def test_manager_sees_meetings_their_team_organised(api, db):
    """docs/decisions/meetings.md: a manager sees the meetings attended or organised by their team."""
    squad = make_squad(db)
    manager = make_user(db, access_level="manager")
    squad.manager_id = manager.id
    member = make_user(db, squad_id=squad.id)
    report = make_user(db, manager_id=manager.id)
    outsider = make_user(db)
    by_member = make_meeting(db, organizer_email=member.email.upper(), attendees=[outsider])
    by_report = make_meeting(db, organizer_email=report.email)
    by_outsider = make_meeting(db, organizer_email=outsider.email, attendees=[outsider])
    assert set(_ids(api, manager)) == {by_member.id, by_report.id}
    assert api.get(f"/api/meetings/{by_member.id}", as_=manager).status == 200
    assert api.get(f"/api/meetings/{by_outsider.id}", as_=manager).status == 404
    assert api.get("/api/meetings/stats", as_=manager).json == {"unmatched_count": 2}


def test_date_filters_given_as_dates_include_the_whole_day(api, db, exec_user, set_env):
    """docs/decisions/meetings.md: date_from and date_to are dates or timestamps, inclusive, on the meeting's
    date (the organisation's calendar day, ORG_TIMEZONE)."""
    set_env(ORG_TIMEZONE="Australia/Sydney")
    early = make_meeting(db, meeting_date=datetime(2026, 3, 4, 21, 30, tzinfo=timezone.utc))  # 5 March 08:30 Sydney
    late = make_meeting(db, meeting_date=datetime(2026, 3, 5, 6, 0, tzinfo=timezone.utc))  # 5 March 17:00 Sydney
    before = make_meeting(db, meeting_date=datetime(2026, 3, 4, 12, 0, tzinfo=timezone.utc))  # 4 March 23:00 Sydney
    after = make_meeting(db, meeting_date=datetime(2026, 3, 5, 13, 30, tzinfo=timezone.utc))  # 6 March 00:30 Sydney
    assert set(_ids(api, exec_user, "?date_from=2026-03-05&date_to=2026-03-05")) == {early.id, late.id}
    assert set(_ids(api, exec_user, "?date_to=2026-03-05")) >= {before.id, early.id, late.id}
    assert after.id not in _ids(api, exec_user, "?date_to=2026-03-05")
    assert before.id not in _ids(api, exec_user, "?date_from=2026-03-05")
    # timestamps stay exact
    assert _ids(api, exec_user, "?date_from=2026-03-05T05:00:00Z&date_to=2026-03-05T07:00:00Z") == [late.id]
    for bad in ("date_to=2026-02-30", "date_from=05/03/2026"):
        assert api.get(f"/api/meetings?{bad}", as_=exec_user).status == 400, bad
    for edge in ("date_to=9999-12-31", "date_from=0001-01-01", "date_from=9999-12-31T23:59:59Z"):
        assert api.get(f"/api/meetings?{edge}", as_=exec_user).status in (200, 400), edge


def test_an_action_item_moves_between_pending_done_and_dismissed_at_any_time(api, db, employee):
    """Document 3, States: status may be set to pending, done or dismissed at any time; dismissed completes the
    action centre item as done does (meetings.md)."""
    meeting = make_meeting(db, attendees=[employee], items=[("Write the notes", employee)])
    item_id = api.get(f"/api/meetings/{meeting.id}", as_=employee).json["meeting"]["action_items"][0]["id"]
    db.add(ActionItem(title="Write the notes", assigned_to=employee.id, source_module="meetings", source_id=item_id,
                      urgency="normal", is_completed=False))
    db.flush()
    centre = db.scalar(select(ActionItem).where(ActionItem.source_id == item_id))
    path = f"/api/meetings/{meeting.id}/action-items/{item_id}/status"
    for status, completed in (("dismissed", True), ("done", True), ("dismissed", True), ("pending", False),
                              ("pending", False), ("dismissed", True)):
        answer = api.post(path, as_=employee, json={"status": status})
        assert answer.status == 200 and answer.json["action_item"]["status"] == status, (status, answer)
        db.refresh(centre)
        assert centre.is_completed is completed, status
    detail = api.get(f"/api/meetings/{meeting.id}", as_=employee).json["meeting"]
    assert [i["status"] for i in detail["action_items"]] == ["dismissed"]


def test_a_meeting_answers_at_most_500_attendees_and_action_items(api, db, exec_user):
    """decisions.md section 4: the provider's attendees and the AI's action items of one meeting, at most 500
    each (the first by e-mail and by position), in the list and the detail; another meeting keeps its own."""
    from chalicelib.areas.meetings.models import MeetingActionItem, MeetingAttendee

    big, small = make_meeting(db), make_meeting(db, attendees=[exec_user], items=[("Only item", None)])
    db.add_all([MeetingAttendee(meeting_id=big.id, email=f"guest{n:03d}@client.test", name=f"Guest {n}")
                for n in range(501)])
    db.add_all([MeetingActionItem(meeting_id=big.id, position=n, text=f"Item {n}", status="pending", source="ai")
                for n in range(501)])
    db.flush()
    detail = api.get(f"/api/meetings/{big.id}", as_=exec_user).json["meeting"]
    assert len(detail["attendees"]) == 500 and detail["attendees"][-1]["email"] == "guest499@client.test"
    assert [i["text"] for i in detail["action_items"]] == [f"Item {n}" for n in range(500)]
    listed = {m["id"]: m for m in api.get("/api/meetings", as_=exec_user).json["meetings"]}
    assert len(listed[big.id]["attendees"]) == 500 and len(listed[big.id]["action_items"]) == 500
    assert len(listed[small.id]["attendees"]) == 1 and len(listed[small.id]["action_items"]) == 1


def test_a_refused_transcript_is_a_502_and_caches_nothing(api, db, employee, set_env):
    """The provider is asked with no transaction open; its failure answers 502 `{error}` and the transcript
    stays unfetched (the next request asks again)."""
    from chalicelib.areas.meetings.models import Meeting

    meeting = make_meeting(db, id="sandbox-note-2", title="Sprint planning", attendees=[employee])
    set_env(MEETNOTES_API_KEY="invalid-key")
    refused = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert refused.status == 502 and set(refused.json) == {"error"}
    db.expire_all()
    assert db.get(Meeting, meeting.id).transcript is None
    set_env(MEETNOTES_API_KEY=None)
    fetched = api.get(f"/api/meetings/{meeting.id}/transcript", as_=employee)
    assert fetched.status == 200 and fetched.json["transcript"]["sentences"]


def test_the_status_of_an_action_item_past_the_first_500_is_set(api, db, exec_user):
    """Document 3, States: an action item's status may be set at any time; the answer `{ action_item }` of one
    past the 500 a meeting's lists show (decisions.md section 4) was looked for among those 500: a 500 error."""
    from chalicelib.areas.meetings.models import MeetingActionItem

    assignee = make_user(db, name="Ada Assignee")
    meeting = make_meeting(db)
    db.add_all([MeetingActionItem(meeting_id=meeting.id, position=n, text=f"Item {n}", status="pending", source="ai",
                                  assignee_id=assignee.id if n == 500 else None) for n in range(501)])
    db.flush()
    last = db.scalar(select(MeetingActionItem.id).where(MeetingActionItem.meeting_id == meeting.id,
                                                        MeetingActionItem.position == 500))
    answer = api.post(f"/api/meetings/{meeting.id}/action-items/{last}/status", as_=exec_user, json={"status": "done"})
    assert answer.status == 200, answer
    assert answer.json["action_item"] == {"id": last, "text": "Item 500", "status": "done", "assignee_id": assignee.id,
                                          "assignee_name": "Ada Assignee", "source": "ai"}
