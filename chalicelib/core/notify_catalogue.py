"""The notification type catalogue: every type an area may pass to `notify()`.

A static list (id, category, label, description, default channels). A type missing from the list
is still stored and shown in-app, with in-app as its only default channel (`type_info`).
"""
from __future__ import annotations

from dataclasses import dataclass

CHANNELS = ("in_app", "email", "chat", "push")
DELIVERY_CHANNELS = ("email", "chat", "push")  # in-app is the record itself


@dataclass(frozen=True)
class NotificationType:
    id: str
    category: str
    label: str
    description: str
    email: bool = False
    chat: bool = False
    push: bool = True
    in_app: bool = True

    def defaults(self) -> dict[str, bool]:
        return {"in_app": self.in_app, "email": self.email, "chat": self.chat, "push": self.push}

    def as_dict(self) -> dict:
        return {"id": self.id, "category": self.category, "label": self.label, "description": self.description,
                "default_channels": {name: int(value) for name, value in self.defaults().items()}}


T = NotificationType
TYPES: tuple[NotificationType, ...] = (
    # work
    T("task_assigned", "tasks", "Task assigned", "A task was assigned to you.", chat=True),
    T("task_status_changed", "tasks", "Task status changed", "A task you are assigned to, report or watch changed status."),
    T("task_due_soon", "tasks", "Task due soon", "An open task assigned to you, or one you report or deliver whose assignee cannot be told, is due today or tomorrow.", email=True),
    T("todo_assigned", "tasks", "To-do assigned", "A to-do was assigned to you.", chat=True),
    T("agent_task_stage_changed", "tasks", "Agent task stage changed", "An agent task moved to a new stage."),
    T("agent_run_failed", "tasks", "Agent run failed", "An agent run failed (its runner reported it, or it was given up unreported) on a task you are assigned to, report or dispatched: the task is back where a person decides."),
    T("project_member_added", "projects", "Added to a project", "You were added to a project team.", email=True),
    T("project_completed", "projects", "Project completed", "A project you deliver was completed.", email=True),
    T("project_status_changed", "projects", "Project status changed", "A project you own, deliver or belong to changed status."),
    T("sla_breach", "sla", "Service level breach", "A service level target was missed.", email=True, chat=True),
    T("action_item_assigned", "action-centre", "Action item assigned", "An action item was assigned to you."),
    # collaboration
    T("mention", "collaboration", "Mention", "Someone mentioned you.", chat=True),
    T("page_comment", "pages", "Page comment", "Someone commented on a page discussion you started or commented in."),
    T("announcement_published", "announcements", "New announcement", "A company announcement was published.", email=True),
    T("squad_broadcast", "squads", "Squad broadcast", "A message to your squad.", chat=True),
    # calendar and meetings
    T("meeting_invited", "calendar", "Meeting invitation", "You were invited to a meeting that needs a response.", email=True),
    T("meeting_response", "calendar", "Meeting response", "An invitee answered a meeting you organised."),
    T("meeting_action_item", "meetings", "Meeting action item", "A meeting produced an action item for you."),
    # people
    T("leave_requested", "leave", "Leave request to review", "A leave request awaits your approval.", email=True),
    T("leave_approved", "leave", "Leave approved", "Your leave request was approved.", email=True),
    T("leave_rejected", "leave", "Leave rejected", "Your leave request was rejected.", email=True),
    T("leave_cancelled", "leave", "Leave cancelled", "A leave request was cancelled."),
    T("leave_reversal_failed", "leave", "Cancelled leave not undone",
      "A cancelled leave request's ledger, planner, calendar or chat entries could not be undone: retry them.", email=True),
    T("review_assigned", "performance", "Review assigned", "A performance review was assigned to you.", email=True),
    T("feedback_requested", "performance", "Feedback requested", "Someone asked for your feedback.", email=True),
    T("review_submitted", "performance", "Self-assessment submitted", "A self-assessment you review was submitted.", email=True),
    T("feedback_request_cancelled", "performance", "Feedback request closed", "A colleague you asked for feedback has left: ask someone else."),
    # sales and finance
    T("proposal_submitted", "proposals", "Proposal to approve", "A proposal was submitted for your approval.", email=True),
    T("proposal_approved", "proposals", "Proposal approved", "Your proposal was approved."),
    T("proposal_changes_requested", "proposals", "Proposal changes requested", "Changes were requested on your proposal."),
    T("proposal_viewed", "proposals", "Proposal viewed", "A client opened a proposal you sent."),
    T("proposal_accepted", "proposals", "Proposal accepted", "A client accepted a proposal.", email=True, chat=True),
    T("proposal_declined", "proposals", "Proposal declined", "A client declined a proposal.", email=True),
    T("proposal_expired", "proposals", "Proposal expired", "A proposal you sent expired unanswered."),
    T("research_brief_ready", "deals", "Research brief ready", "A research brief on a deal you own is ready.", email=True),
    T("deal_assigned", "deals", "Deal assigned", "A deal was made for you or handed to you by someone else."),
    T("invoice_created", "invoices", "Invoice created", "An invoice was created for a project you own or deliver."),
    T("invoice_overdue", "invoices", "Invoice overdue", "An invoice you created, or of a project you own or deliver, is past its due date.", email=True),
    T("invoice_paid", "invoices", "Invoice paid", "An invoice you created, or of a project you own or deliver, was paid."),
    # client portal
    T("portal_request", "portal", "Client portal request", "A client raised a request in the portal.", email=True, chat=True),
    T("portal_connection", "portal", "Client portal connection", "A client connected an account in the portal."),
    T("portal_connection_error", "portal", "Client connection failing", "A client's connected account stopped syncing.", email=True),
    T("portal_questionnaire", "portal", "Client questionnaire completed", "A client completed a questionnaire.", email=True),
    T("portal_budget_approved", "portal", "Client approved a budget", "A client approved a budget in the portal.", email=True),
    T("portal_note", "portal", "Client note", "A client wrote a note or replied to one in the portal.", email=True),
)
del T

_BY_ID = {item.id: item for item in TYPES}


def get_type(type_id: str) -> NotificationType | None:
    return _BY_ID.get(type_id)


def type_info(type_id: str) -> NotificationType:
    """The catalogue entry, or an in-app-only entry for a type the catalogue does not list."""
    return _BY_ID.get(type_id) or NotificationType(type_id, "other", type_id.replace("_", " ").capitalize(), "",
                                                   push=False)


def type_ids() -> list[str]:
    return [item.id for item in TYPES]
