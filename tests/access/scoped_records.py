"""Per path parameter: how to make a record that an employee may not see (SCOPED), or why the
parameter names a record every holder of the tool sees (UNSCOPED).

tests/access/test_matrix.py reads this for every route of the app: a path parameter that is in
neither table fails `test_every_path_parameter_is_classified`, so a new scoped route cannot slip
past the record-level check. Factories are the areas' own (tests/areas/<area>/factories.py),
imported lazily so that this module loads whatever areas exist.

A SCOPED maker is `make(db, made) -> Made`: `made` holds the ids already made for the earlier path
parameters of the same route (a goal is made inside the hidden project of `project_id`). The owner
of the record (someone who does see it) is returned so the test can prove the record is real.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date
from typing import Callable

from tests.factories import make_squad, make_user


@dataclass
class Made:
    id: str
    owner: object  # a User who sees the record


@dataclass
class Scoped:
    make: Callable[..., Made]
    expect: tuple[int, ...] = (404,)
    rule: str = ""


@dataclass
class Unscoped:
    reason: str
    value: Callable[..., str] | None = None  # a real value, so the route's other checks pass
    extra: dict = field(default_factory=dict)


def _someone(db):
    return make_user(db, access_level="employee")


# ------------------------------------------------------------------ tasks

def _hidden_task(db, made) -> Made:
    from tests.areas.tasks.factories import make_task

    owner = _someone(db)
    task = make_task(db, created_by=owner.id, assignee_id=owner.id, reporter_id=owner.id)
    return Made(task.id, owner)


def _hidden_task_resource(db, made) -> Made:
    from chalicelib.areas.tasks.models import TaskResource

    task_id, owner = _parent(db, made, "task_id", _hidden_task)
    resource = TaskResource(task_id=task_id, type="link", url="https://example.com/spec", title="Spec", icon="link")
    db.add(resource)
    db.flush()
    return Made(resource.id, owner)


# ------------------------------------------------------------------ projects

def _hidden_sprint(db, made) -> Made:
    from chalicelib.areas.sprints.models import Sprint

    project_id, owner = _parent(db, made, "project_id", _hidden_project)
    sprint = Sprint(project_id=project_id, name="Hidden sprint", status="active", created_by=owner.id)
    db.add(sprint)
    db.flush()
    return Made(sprint.id, owner)


def _hidden_project(db, made) -> Made:
    from tests.areas.projects.factories import make_project

    owner = _someone(db)
    project = make_project(db, owner_id=owner.id, delivery_manager_id=_someone(db).id, members=[_someone(db)])
    return Made(project.id, owner)


def _hidden_goal(db, made) -> Made:
    from chalicelib.areas.projects.models import ProjectGoal

    project_id, owner = _parent(db, made, "project_id", _hidden_project)
    goal = ProjectGoal(project_id=project_id, title="Hidden goal", position=0)
    db.add(goal)
    db.flush()
    return Made(goal.id, owner)


def _hidden_decision(db, made) -> Made:
    from chalicelib.areas.projects.models import ProjectDecision

    project_id, owner = _parent(db, made, "project_id", _hidden_project)
    decision = ProjectDecision(project_id=project_id, title="Hidden decision", decision="We agreed", status="agreed")
    db.add(decision)
    db.flush()
    return Made(decision.id, owner)


# ------------------------------------------------------------------ timesheets, notifications

def _hidden_time_entry(db, made) -> Made:
    from chalicelib.areas.timesheets.models import TimeEntry

    owner = _someone(db)
    entry = TimeEntry(user_id=owner.id, date=date.today(), hours=2, billable=True, status="submitted",
                      created_by=owner.id)
    db.add(entry)
    db.flush()
    return Made(entry.id, owner)


def _hidden_notification(db, made) -> Made:
    from chalicelib.core.notify import Notification

    owner = _someone(db)
    notification = Notification(user_id=owner.id, type="task_assigned", title="Someone else's notification")
    db.add(notification)
    db.flush()
    return Made(notification.id, owner)


# ------------------------------------------------------------------ budgets

def _hidden_budget(db, made) -> Made:
    from tests.areas.budgets.factories import make_budget

    project = _hidden_project(db, made)
    return Made(make_budget(db, resource_id=project.id).id, project.owner)


def _hidden_line_item(db, made) -> Made:
    from chalicelib.areas.budgets.models import Budget
    from tests.areas.budgets.factories import make_line_item

    budget_id, owner = _parent(db, made, "budget_id", _hidden_budget)
    return Made(make_line_item(db, db.get(Budget, budget_id)).id, owner)


# ------------------------------------------------------------------ roadmaps

def _hidden_roadmap(db, made) -> Made:
    from chalicelib.areas.roadmaps.models import Roadmap

    project = _hidden_project(db, made)
    roadmap = Roadmap(name="Hidden roadmap", project_id=project.id)
    db.add(roadmap)
    db.flush()
    return Made(roadmap.id, project.owner)


def _hidden_roadmap_item(db, made) -> Made:
    from chalicelib.areas.roadmaps.models import RoadmapItem

    roadmap_id, owner = _parent(db, made, "roadmap_id", _hidden_roadmap)
    item = RoadmapItem(roadmap_id=roadmap_id, title="Hidden item", position=0)
    db.add(item)
    db.flush()
    return Made(item.id, owner)


# ------------------------------------------------------------------ action items

def _hidden_action_item(db, made) -> Made:
    from tests.areas.action_items.factories import make_action_item

    owner = _someone(db)
    return Made(make_action_item(db, assigned_to=owner.id, created_by=owner.id).id, owner)


# ------------------------------------------------------------------ meetings

def _hidden_meeting(db, made) -> Made:
    from tests.areas.meetings.factories import make_meeting

    owner = _someone(db)
    return Made(make_meeting(db, attendees=[owner]).id, owner)


def _hidden_meeting_action_item(db, made) -> Made:
    from chalicelib.areas.meetings.models import MeetingActionItem

    meeting_id, owner = _parent(db, made, "meeting_id", _hidden_meeting)
    item = MeetingActionItem(meeting_id=meeting_id, position=0, text="Follow up", status="pending",
                             assignee_id=owner.id, source="ai")
    db.add(item)
    db.flush()
    return Made(item.id, owner)


# ------------------------------------------------------------------ notes

def _hidden_note(db, made) -> Made:
    from chalicelib.areas.notes.models import Note

    project = _hidden_project(db, made)
    note = Note(resource_type="project", resource_id=project.id, author_id=project.owner.id, content="Hidden",
                visibility=["employee", "lead", "manager", "head", "executive"], mentions=[])
    db.add(note)
    db.flush()
    return Made(note.id, project.owner)


# ------------------------------------------------------------------ proposals

def _hidden_proposal(db, made) -> Made:
    from chalicelib.areas.pages.models import Page
    from chalicelib.areas.proposals.models import Proposal

    owner = _someone(db)
    page = Page(title="Hidden proposal", entity_type="proposal", created_by=owner.id)
    db.add(page)
    db.flush()
    proposal = Proposal(title="Hidden proposal", page_id=page.id, owner_id=owner.id, created_by=owner.id)
    db.add(proposal)
    db.flush()
    return Made(proposal.id, owner)


# ------------------------------------------------------------------ relationships

def _hidden_relationship_action(db, made) -> Made:
    from chalicelib.areas.relationships.models import RelationshipAction
    from tests.areas.deals.factories import make_contact

    owner = _someone(db)
    action = RelationshipAction(contact_id=make_contact(db).id, title="Hidden call", action_type="call",
                                assigned_to_user_id=owner.id, status="pending", is_auto=False)
    db.add(action)
    db.flush()
    return Made(action.id, owner)


def _life_event(db, made) -> str:
    from chalicelib.areas.relationships.models import LifeEvent

    event = LifeEvent(contact_id=made["contact_id"].id, event_type="birthday", title="Birthday",
                      recurs_annually=False, auto_action_enabled=False, auto_action_days_before=7)
    db.add(event)
    db.flush()
    return event.id


def _partner(db, made) -> str:
    from chalicelib.areas.clients.service import ensure_client_profile
    from chalicelib.areas.relationships.models import Partner

    ensure_client_profile(db, made["company_id"].id)
    partner = Partner(company_id=made["company_id"].id, partner_company_name="Partner Co")
    db.add(partner)
    db.flush()
    return partner.id
# ------------------------------------------------------------------ invoices

def _hidden_invoice(db, made) -> Made:
    from tests.areas.invoices.factories import make_invoice

    budget_id, owner = _parent(db, made, "budget_id", _hidden_budget)
    return Made(make_invoice(db, budget_id=budget_id).id, owner)


def _hidden_invoice_item(db, made) -> Made:
    from chalicelib.areas.invoices.models import Invoice
    from tests.areas.invoices.factories import make_invoice_item

    invoice_id, owner = _parent(db, made, "invoice_id", _hidden_invoice)
    return Made(make_invoice_item(db, db.get(Invoice, invoice_id)).id, owner)
# ------------------------------------------------------------------ performance

def _hidden_review(db, made) -> Made:
    from tests.areas.performance.factories import make_cycle, make_review

    owner = _someone(db)
    review = make_review(db, cycle=make_cycle(db), user=owner, reviewer=owner)
    return Made(review.id, owner)


def _hidden_feedback_request(db, made) -> Made:
    from chalicelib.areas.performance.models import FeedbackRequest
    from tests.areas.performance.factories import make_cycle

    owner = _someone(db)
    request = FeedbackRequest(cycle_id=make_cycle(db).id, subject_id=_someone(db).id, reviewer_id=owner.id,
                              requested_by=owner.id, status="pending")
    db.add(request)
    db.flush()
    return Made(request.id, owner)


# ------------------------------------------------------------------ agents

def _hidden_agent_task(db, made) -> Made:
    from tests.areas.agents.factories import make_agent_task

    owner = _someone(db)
    task, _agent = make_agent_task(db, owner=owner)
    return Made(task.id, owner)


def _hidden_leave_request(db, made) -> Made:
    from tests.areas.leave.factories import make_leave

    owner = _someone(db)
    return Made(make_leave(db, owner).id, owner)


def _parent(db, made, name, maker):
    if name in made:
        return made[name].id, made[name].owner
    parent = maker(db, made)
    return parent.id, parent.owner


SCOPED: dict[str, Scoped] = {
    "proposal_id": Scoped(_hidden_proposal, rule="employee and lead see the proposals they own (or approve), a "
                                                 "manager their team's, head and executive all (issue 16)"),
    "task_id": Scoped(_hidden_task, rule="employee and lead see tasks they are assigned to, reported, created or "
                                         "watch (document 1, Tasks)"),
    "resource_id": Scoped(_hidden_task_resource, rule="a task's resources are seen with the task"),
    "project_id": Scoped(_hidden_project, rule="employee and lead see projects they own, deliver or belong to "
                                               "(document 1, Projects)"),
    "sprint_id": Scoped(_hidden_sprint, rule="a sprint is seen through its project (issue 20; "
                                             "docs/decisions/sprints.md)"),
    "goal_id": Scoped(_hidden_goal, rule="a project's goals are seen with the project"),
    "decision_id": Scoped(_hidden_decision, rule="a project's decisions are seen with the project"),
    "entry_id": Scoped(_hidden_time_entry, rule="employees see their own time entries, managers their team's"),
    "budget_id": Scoped(_hidden_budget, rule="a project's budget is seen with the project; a deal's by every "
                                             "budgets holder (docs/decisions/budgets.md)"),
    "line_item_id": Scoped(_hidden_line_item, rule="a budget's line items are seen with the budget"),
    "roadmap_id": Scoped(_hidden_roadmap, rule="a project's roadmap is seen with the project; one without a "
                                               "project by every roadmaps holder (docs/decisions/roadmaps.md)"),
    "roadmap_item_id": Scoped(_hidden_roadmap_item, rule="a roadmap's items are seen with the roadmap"),
    "meeting_id": Scoped(_hidden_meeting, rule="attendees and organisers see their meetings, managers their team's, "
                                               "head and executive all (docs/decisions/meetings.md)"),
    "action_id": Scoped(_hidden_meeting_action_item, rule="a meeting's action items are seen with the meeting"),
    "action_item_id": Scoped(_hidden_action_item, rule="employee, lead and manager see the action items assigned "
                                                         "to them (document 1, Action items)"),
    "invoice_id": Scoped(_hidden_invoice, rule="an invoice of a budget is seen with the budget; one without a "
                                               "budget by every invoices holder (docs/decisions/invoices.md)"),
    "invoice_item_id": Scoped(_hidden_invoice_item, rule="an invoice's line items are seen with the invoice"),
    "notification_id": Scoped(_hidden_notification, rule="notifications are own data (decisions.md section 5)"),
    "record_id": Scoped(_hidden_project, rule="a note's record must be visible to the caller (here a project, "
                                              "with resource_type `project`: docs/decisions/notes.md)"),
    "note_id": Scoped(_hidden_note, rule="a note is read with its record (here a hidden project)"),
    "relationship_action_id": Scoped(_hidden_relationship_action, rule="executive and head see every relationship "
                                     "action; a manager their own and their squad's; others their own (document 2)"),
    "agent_task_id": Scoped(_hidden_agent_task, rule="an agent task is seen with its task (document 1, Tasks; "
                                                     "docs/decisions/agents.md)"),
    "review_id": Scoped(_hidden_review, rule="employee and lead see their own reviews and those they review; a "
                                             "manager also their team's (docs/decisions/performance.md)"),
    "leave_request_id": Scoped(_hidden_leave_request, rule="head and executive see every leave request; others "
                                                          "their own and their managed squads' (docs/decisions/leave.md)"),
}


# ------------------------------------------------------------------ unscoped

def _config_key(db, made) -> str:
    return "task_status"


def _config_item(db, made) -> str:
    from sqlalchemy import select

    from chalicelib.core.models import ConfigList, ConfigListItem

    key = made["key"].id if "key" in made else "task_status"
    return db.scalar(select(ConfigListItem.id).join(ConfigList).where(ConfigList.key == key).limit(1))


def _a_user(db, made) -> str:
    return make_user(db).id


def _a_squad(db, made) -> str:
    return make_squad(db).id


def _company(db, made) -> str:
    from tests.areas.deals.factories import make_company

    return make_company(db).id


def _contact(db, made) -> str:
    from tests.areas.deals.factories import make_contact

    return make_contact(db).id


def _deal(db, made) -> str:
    from tests.areas.deals.factories import make_deal

    return make_deal(db).id


def _page(db, made):
    from tests.areas.pages.factories import make_page

    return made["page_id"].id if "page_id" in made else make_page(db).id


def _page_record(db, made):
    from chalicelib.areas.pages.models import Page

    return db.get(Page, _page(db, made))


def _discussion(db, made) -> str:
    from tests.areas.pages.factories import make_discussion

    return make_discussion(db, _page_record(db, made), make_user(db)).id


def _comment(db, made) -> str:
    from chalicelib.areas.pages.models import PageDiscussion
    from tests.areas.pages.factories import make_comment

    discussion = db.get(PageDiscussion, made["discussion_id"].id) if "discussion_id" in made else None
    if discussion is None:
        discussion = db.get(PageDiscussion, _discussion(db, made))
    return make_comment(db, discussion, make_user(db)).id


def _sla_policy(db, made) -> str:
    from chalicelib.areas.sla.models import SlaPolicy

    policy = SlaPolicy(name="Any policy")
    db.add(policy)
    db.flush()
    return policy.id


def _service_type(db, made) -> str:
    from sqlalchemy import select

    from chalicelib.core.models import ConfigList, ConfigListItem

    return db.scalar(select(ConfigListItem.id).join(ConfigList).where(ConfigList.key == "service_type").limit(1))


def _version(db, made) -> str:
    from tests.areas.pages.factories import make_version

    return make_version(db, _page_record(db, made), make_user(db)).id


def _open_cycle(db, made) -> str:
    from tests.areas.performance.factories import make_cycle

    return make_cycle(db).id


def _review_template(db, made) -> str:
    from tests.areas.performance.factories import make_template

    return make_template(db)[0].id


def _announcement(db, made) -> str:
    from tests.areas.announcements.factories import make_announcement

    return make_announcement(db).id


def _holiday(db, made) -> str:
    from chalicelib.areas.calendar.models import PublicHoliday

    row = PublicHoliday(date=date(2026, 12, 25), name="Christmas Day")
    db.add(row)
    db.flush()
    return row.id


def _culture_event(db, made) -> str:
    from chalicelib.areas.calendar.models import CultureEvent

    row = CultureEvent(title="Party", date=date(2026, 12, 18), status="planned")
    db.add(row)
    db.flush()
    return row.id


def _contract(db, made) -> str:
    from chalicelib.areas.clients.models import Contract

    row = Contract(title="Master services", status="draft", signers=[])
    db.add(row)
    db.flush()
    return row.id


UNSCOPED: dict[str, Unscoped] = {
    "contract_id": Unscoped("contracts follow companies and deals: every holder of deals:view sees them all "
                           "(docs/decisions/clients.md)", _contract),
    # one entry a parameter name: the areas that name a path parameter alike share it
    "template_id": Unscoped("proposal, client onboarding and review templates are organisation-wide: every holder "
                            "of the tool sees every template (docs/decisions/proposals.md, onboarding.md, "
                            "performance.md)", _review_template),
    "stage_id": Unscoped("client onboarding stages belong to organisation-wide templates "
                         "(docs/decisions/onboarding.md)"),
    "milestone_id": Unscoped("client onboarding milestones belong to organisation-wide templates; a company's "
                             "progress follows companies, seen by every deals holder"),
    "section_id": Unscoped("a pricing section is reached through its proposal (the proposal_id beside it is "
                           "scoped)"),
    "key": Unscoped("config lists are organisation-wide: every config-lists holder sees every list", _config_key),
    "item_id": Unscoped("config list items are organisation-wide", _config_item),
    "user_id": Unscoped("users are the directory (admin:view sees all; a project member is reached through the "
                        "scoped project_id)", _a_user),
    "squad_id": Unscoped("squads are organisation-wide (admin tool or executive access level)", _a_squad),
    "company_id": Unscoped("companies: every holder of deals:view sees all (docs/decisions/deals.md)", _company),
    "contact_id": Unscoped("contacts: every holder of the deals tool sees all", _contact),
    "deal_id": Unscoped("deals: no record scoping is stated (decisions.md section 6; docs/decisions/deals.md)", _deal),
    "page_id": Unscoped("pages are shared by everyone with pages:view (docs/decisions/pages.md)", _page),
    "discussion_id": Unscoped("a page's discussions are seen with the page", _discussion),
    "comment_id": Unscoped("seen with the page; editing another's comment is an authorship rule (403) that the "
                           "pages area tests, and pages:manage may delete any comment", _comment),
    "version_id": Unscoped("a page's versions are seen with the page", _version),
    "event_id": Unscoped("life events: every relationships holder sees every contact's (docs/decisions/"
                         "relationships.md); a calendar event is the provider's, reached as the caller: the "
                         "provider decides", _life_event),
    "partner_id": Unscoped("partners: every relationships holder sees every client's", _partner),
    "brief_id": Unscoped("research briefs follow deals and companies: every deals holder sees them all "
                         "(docs/decisions/research.md)"),
    "resource_type": Unscoped("a note's resource type is a name; the record_id beside it is scoped",
                              lambda db, made: "project"),
    "service_type_id": Unscoped("service types are an organisation-wide config list (invoice mapping rules)",
                                _service_type),
    "policy_id": Unscoped("SLA policies are organisation-wide: every sla holder sees every policy "
                          "(docs/decisions/sla.md)", _sla_policy),
    "calendar_id": Unscoped("a calendar of the calendar provider, reached as the caller (domain-wide delegation): "
                            "the provider's own sharing rules answer (403/404 with detail), not a record scope"),
    "holiday_id": Unscoped("public holidays are organisation-wide: every calendar holder sees all", _holiday),
    "culture_event_id": Unscoped("culture events are organisation-wide: every calendar holder sees all",
                                 _culture_event),
    "agent_id": Unscoped("business agents are a registry shared by every tasks holder (docs/decisions/agents.md)"),
    "trigger_name": Unscoped("a business agent's trigger name, not a record"),
    "cycle_id": Unscoped("review cycles are organisation-wide; only drafts are hidden from non-executive reads "
                         "(document 2), and performance:manage writes any cycle", _open_cycle),
    "announcement_id": Unscoped("announcements are company-wide: every announcements holder sees every one "
                                "(document 3; docs/decisions/announcements.md)", _announcement),
    "qbr_id": Unscoped("QBRs follow client companies: every deals holder sees every client's (decisions.md "
                       "section 6; docs/decisions/portal.md)"),
    "client_goal_id": Unscoped("client goals follow client companies: every deals holder sees every client's "
                               "(docs/decisions/portal.md)"),
    "ad_connection_id": Unscoped("a client's ad platform connections follow client companies: every deals holder "
                                 "sees every client's (docs/decisions/portal.md)"),
}


def value_for(db, name: str, made: dict) -> str:
    """A value for an unscoped path parameter: a real record when we know how, else a random UUID."""
    entry = UNSCOPED.get(name)
    if entry is not None and entry.value is not None:
        value = entry.value(db, made)
        if value:
            return value
    return str(uuid.uuid4())


# Routes where a rule of the area answers before record scoping does, for one kind of viewer:
# (method, path, viewer access level) -> (statuses, why). The other viewers still get SCOPED's expect.
ROUTE_EXPECT: dict[tuple[str, str, str], tuple[tuple[int, ...], str]] = {
    ("POST", "/api/leave/requests/{leave_request_id}/retry-integrations", "executive"): (
        (409,), "executive only: an executive sees every leave request, so the hidden one is found and is not "
                "approved"),
    ("POST", "/api/time-entries/{entry_id}/approve", "employee"): (
        (403,), "only approvers (manager and above, or timesheets:manage) decide; the role check comes first"),
    ("POST", "/api/time-entries/{entry_id}/reject", "employee"): (
        (403,), "only approvers (manager and above, or timesheets:manage) decide; the role check comes first"),
}

# Request bodies for routes whose body model the generic minimal body does not satisfy:
# {("PUT", "/api/x/{x_id}"): {...}}.
BODY_EXAMPLES: dict[tuple[str, str], dict] = {}
