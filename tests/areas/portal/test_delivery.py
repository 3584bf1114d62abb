"""Portal reads of delivery work (issue 19 item 2): dashboard, projects, tasks, roadmap, decisions, team,
history, pages and announcements; each scoped to the company (another company's record answers 404)."""
from datetime import date, datetime, timedelta, timezone

from chalicelib.areas.projects.models import ProjectAISummary, ProjectDecision, ProjectGoal
from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
from chalicelib.core import history as core_history
from tests.areas.announcements.factories import make_announcement
from tests.areas.pages.factories import make_page
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import add_member, make_project
from tests.areas.tasks.factories import make_task, priority, status, task_type
from tests.factories import make_user


def _world(db):
    mine, other = make_client(db), make_client(db)
    staff = make_user(db, name="Dana Delivery", salary=150000, job_title="Delivery manager")
    project = make_project(db, company_id=mine.id, name="Website", delivery_manager_id=staff.id, owner_id=staff.id)
    foreign = make_project(db, company_id=other.id, name="Secret")
    return mine, other, staff, project, foreign


def test_projects_list_and_detail(portal, db, count_queries):
    mine, other, staff, project, foreign = _world(db)
    done = status(db, "done")
    make_task(db, resource_type="project", resource_id=project.id, status_id=done.id)
    make_task(db, resource_type="project", resource_id=project.id)
    make_task(db, resource_type="project", resource_id=project.id, is_private=True)
    make_project(db, company_id=mine.id, name="Old", status="completed")
    add_member(db, project, staff, role="lead")
    db.add_all([ProjectGoal(project_id=project.id, title="Launch", position=0, due_date=date(2030, 1, 1)),
                ProjectDecision(project_id=project.id, title="Stack", decision="Use X", decided_by=staff.id),
                ProjectAISummary(project_id=project.id, summary_text="On track", recommendations=["Keep going"],
                                 generated_at=datetime.now(timezone.utc))])
    db.flush()

    listed = portal.get("/projects", mine)
    assert listed.status == 200, listed
    names = {p["name"] for p in listed.json["projects"]}
    assert names == {"Website", "Old"}
    website = next(p for p in listed.json["projects"] if p["name"] == "Website")
    assert website["task_counts"] == {"total": 2, "done": 1, "open": 1}  # the private task is not counted
    assert listed.json["taskCounts"] == {"total": 2, "done": 1, "open": 1}
    completed = portal.get("/projects?status=completed", mine).json
    assert [p["name"] for p in completed["projects"]] == ["Old"]
    assert completed["taskCounts"] == completed["projects"][0]["task_counts"] == {"total": 0, "done": 0, "open": 0}
    assert portal.get(f"/projects?status={project.status}", mine).json["taskCounts"] == {"total": 2, "done": 1, "open": 1}

    with count_queries() as counted:
        detail = portal.get(f"/projects/{project.id}", mine)
    assert detail.status == 200, detail
    body = detail.json
    if db.get_bind().dialect.name == "postgresql":
        # the caller's company, the portal user's upsert, the project, then its goals, members, summary and
        # decisions in one statement (core.query.record_sets), its task counts: 5 (8 with a read each)
        assert counted.count == 5, "\n".join(s[:80] for s in counted.statements)
    assert body["aiSummary"]["recommendations"] == ["Keep going"] and body["aiSummary"]["generated_at"].endswith("Z")
    assert body["project"]["delivery_manager_name"] == "Dana Delivery"
    assert [g["title"] for g in body["goals"]] == ["Launch"]
    assert body["members"] == [{"user_id": staff.id, "name": "Dana Delivery", "picture": None,
                                "job_title": "Delivery manager", "role": "lead"}]
    assert body["aiSummary"]["summary_text"] == "On track"
    assert body["decisions"][0]["decided_by_name"] == "Dana Delivery"
    assert "salary" not in detail.body.decode() and "150000" not in detail.body.decode()

    for path in (f"/projects/{foreign.id}", f"/projects/{foreign.id}/tasks", f"/projects/{foreign.id}/roadmap",
                 f"/projects/{foreign.id}/decisions", "/projects/missing", "/projects/missing/tasks"):
        assert portal.get(path, mine).status == 404, path
    assert "Secret" not in portal.get("/projects", mine).body.decode()


def test_tasks_are_never_private(portal, db):
    mine, other, staff, project, _ = _world(db)
    shown = make_task(db, title="Public", resource_type="project", resource_id=project.id, assignee_id=staff.id,
                      priority_id=priority(db, "high").id, type_id=task_type(db, "bug").id,
                      status_id=status(db, "in_progress").id, internal_hours=12.5, estimate_total_cost=999)
    hidden = make_task(db, title="Private", resource_type="project", resource_id=project.id, is_private=True)
    make_task(db, title="Child of private", resource_type="project", resource_id=project.id,
              parent_task_id=hidden.id)
    make_task(db, title="Elsewhere")
    answer = portal.get(f"/projects/{project.id}/tasks", mine)
    assert answer.status == 200, answer
    tasks = answer.json["tasks"]
    assert [t["title"] for t in tasks] == ["Public"]
    task = tasks[0]
    assert task["id"] == shown.id and task["priority_label"] == "High" and task["type_label"] == "Bug"
    assert task["status_value"] == "in_progress" and task["assignee_name"] == "Dana Delivery"
    assert "internal_hours" not in task and "estimate_total_cost" not in task


def test_roadmap_and_decisions(portal, db):
    mine, other, staff, project, foreign = _world(db)
    assert portal.get(f"/projects/{project.id}/roadmap", mine).json == {"roadmap": None, "items": []}
    roadmap = Roadmap(name="2030", project_id=project.id)
    db.add(roadmap)
    db.flush()
    db.add_all([RoadmapItem(roadmap_id=roadmap.id, title="B", position=1), RoadmapItem(roadmap_id=roadmap.id,
                                                                                       title="A", position=0)])
    db.add(ProjectDecision(project_id=project.id, title="T", decision="D", decided_by=staff.id))
    db.add(ProjectDecision(project_id=foreign.id, title="Foreign", decision="D"))
    db.flush()
    body = portal.get(f"/projects/{project.id}/roadmap", mine).json
    assert body["roadmap"]["name"] == "2030" and [i["title"] for i in body["items"]] == ["A", "B"]
    decisions = portal.get(f"/projects/{project.id}/decisions", mine).json["decisions"]
    assert [(d["title"], d["decided_by_name"]) for d in decisions] == [("T", "Dana Delivery")]


def test_team_and_leads(portal, db):
    mine, other, staff, project, foreign = _world(db)
    dev = make_user(db, name="Devi Dev")
    add_member(db, project, dev)
    add_member(db, foreign, make_user(db, name="Hidden Person"))
    add_member(db, make_project(db, company_id=mine.id, status="completed"), make_user(db, name="Past Person"))
    body = portal.get("/team", mine).json
    assert [m["name"] for m in body["team"]] == ["Devi Dev"]
    assert [(lead["name"], sorted(lead["roles"])) for lead in body["leads"]] == [
        ("Dana Delivery", ["delivery_manager", "owner"])]
    assert "salary" not in str(body)


def test_leads_are_at_most_500(portal, db):
    """An owner and a delivery manager a project: 251 projects of 502 people list the first 500 by name."""
    mine = make_client(db)
    for n in range(251):
        make_project(db, company_id=mine.id, owner_id=make_user(db, name=f"Owner {n:03d}").id,
                     delivery_manager_id=make_user(db, name=f"Manager {n:03d}").id)
    leads = portal.get("/team", mine).json["leads"]
    assert len(leads) == 500 and leads[0]["name"] == "Manager 000" and leads[-1]["name"] == "Owner 248"


def test_history_is_the_companys_and_at_most_50(portal, db):
    mine, other, staff, project, foreign = _world(db)
    for index in range(55):
        core_history.record(db, entity_type="project", entity_id=project.id, action=f"updated{index}",
                            actor_id=staff.id, changes={"internal_cost": 1234})
    core_history.record(db, entity_type="project", entity_id=foreign.id, action="foreign", actor_id=None)
    db.flush()
    entries = portal.get("/history", mine).json["history"]
    assert len(entries) == 50
    assert all(e["entity_id"] == project.id for e in entries) and entries[0]["actor_name"] == "Dana Delivery"
    assert "changes" not in entries[0]
    assert [e["action"] for e in portal.get("/history", other).json["history"]] == ["foreign"]


def test_pages_published_and_linked_only(portal, db):
    mine, other, staff, project, foreign = _world(db)
    on_company = make_page(db, title="Welcome", entity_type="company", entity_id=mine.id, is_published=True,
                           published_at=datetime.now(timezone.utc), content_rich='{"rich": 1}')
    on_project = make_page(db, title="Plan", entity_type="project", entity_id=project.id, is_published=True)
    draft = make_page(db, title="Draft", entity_type="company", entity_id=mine.id, is_published=False)
    archived = make_page(db, title="Gone", entity_type="project", entity_id=project.id, is_published=True,
                         is_archived=True)
    foreign_page = make_page(db, title="Theirs", entity_type="company", entity_id=other.id, is_published=True)
    listed = portal.get("/pages", mine).json["pages"]
    assert {p["title"] for p in listed} == {"Welcome", "Plan"}
    detail = portal.get(f"/pages/{on_company.id}", mine)
    assert detail.status == 200 and detail.json["page"]["content_rich"] == '{"rich": 1}'
    assert portal.get(f"/pages/{on_project.id}", mine).status == 200
    for page in (draft, archived, foreign_page):
        assert portal.get(f"/pages/{page.id}", mine).status == 404


def test_announcements_company_category_latest_20(portal, db):
    mine = make_client(db)
    base = datetime(2030, 1, 1, tzinfo=timezone.utc)
    for index in range(22):
        make_announcement(db, title=f"A{index:02d}", created_at=base + timedelta(hours=index))
    make_announcement(db, title="Team only", category="team", created_at=base + timedelta(days=5))
    listed = portal.get("/announcements", mine).json["announcements"]
    assert len(listed) == 20 and listed[0]["title"] == "A21" and all(a["category"] == "company" for a in listed)
    assert "author_id" not in listed[0]


def _dashboard_world(db, mine, staff, n):
    for index in range(n):
        project = make_project(db, company_id=mine.id, delivery_manager_id=staff.id)
        make_task(db, resource_type="project", resource_id=project.id)
        db.add(ProjectGoal(project_id=project.id, title=f"G{index}", position=0, due_date=date(2030, 1, 1)))
        core_history.record(db, entity_type="project", entity_id=project.id, action="created", actor_id=staff.id)
        make_announcement(db)
    db.flush()


def test_dashboard_keys_and_constant_statements(portal, db, count_queries):
    mine, other, staff, project, foreign = _world(db)
    _dashboard_world(db, mine, staff, 5)
    body = portal.get("/dashboard", mine).json
    assert set(body) == {"projects", "taskCounts", "financial", "recentActivity", "milestones", "announcements"}
    assert len(body["projects"]) == 6 and body["taskCounts"]["total"] == 5
    assert len(body["milestones"]) == 5 and len(body["recentActivity"]) == 5 and len(body["announcements"]) == 5
    with count_queries() as small:
        portal.get("/dashboard", mine)
    _dashboard_world(db, mine, staff, 95)
    with count_queries() as large:
        answer = portal.get("/dashboard", mine)
    assert answer.status == 200 and len(answer.json["projects"]) == 101
    assert len(answer.json["milestones"]) == 10 and len(answer.json["recentActivity"]) == 10
    assert large.count == small.count
    if db.get_bind().dialect.name == "postgresql":  # the profile, the portal user's upsert, then every part at once
        assert large.count == 3, large.statements


def test_a_page_detail_does_not_read_the_collaboration_snapshot(portal, db, count_queries):
    """The portal answers a page's title, content and rich content; its collaboration snapshot (unbounded bytes of
    the staff editor's state) was read too, on every request, for nothing (left alone in session 21, done in 22)."""
    mine, _other, _staff, _project, _foreign = _world(db)
    page = make_page(db, title="Welcome", entity_type="company", entity_id=mine.id, is_published=True,
                     content_rich='{"rich": 1}', collab_snapshot=b"\x00" * 1000)
    with count_queries() as counter:
        detail = portal.get(f"/pages/{page.id}", mine)
    assert detail.status == 200 and detail.json["page"]["content_rich"] == '{"rich": 1}'
    assert counter.statements and not any("collab_snapshot" in statement for statement in counter.statements)
