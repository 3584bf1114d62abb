"""The client portal (base /api/portal; document 3) and the staff CRUD of QBRs and client goals
(decisions.md section 6: /api/clients/:companyId/qbrs and /goals, tool `deals`).

Portal routes are called by the portal worker with `Authorization: Bearer <PORTAL_SERVICE_TOKEN>` and the
X-Portal-* headers (boundary.py); every read is scoped to `ctx.portal`'s company."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.query import FitBody
from chalicelib.core.schemas import OkResponse, PageQuery, many, one, paged

from . import (service, service_budgets, service_clients, service_invoices, service_notes, service_notifications,
               service_qbrs, service_requests)
from .boundary import portal_endpoint
from .schemas import (BudgetDetailBody, DashboardBody, IdBody, InvoiceDetailBody, OnboardingBody,
                      PortalAnnouncementRead, PortalBudgetRead, PortalContractRead, PortalDecisionRead,
                      PortalHistoryRead, PortalInvoiceRead, PortalNoteCreate, PortalNoteRead, PortalPageDetail,
                      PortalPageRead, PortalProjectListQuery, PortalRequestCreate, PortalTaskRead, ProjectDetailBody,
                      ProjectsBody, RequestCreated, RoadmapBody, TeamBody)
from .schemas_goals import ClientGoalCreate, ClientGoalRead, ClientGoalUpdate, QuestionnaireRead, QuestionnaireSubmit
from .schemas_notifications import (NotificationsBody, PortalNotificationListQuery, PortalPreferenceRead,
                                    PortalPreferencesUpdate, PortalUnreadCount)
from .schemas_qbrs import PortalQbrRead, QbrCreate, QbrRead, QbrUpdate

bp = Blueprint(__name__)
P = "/api/portal"


@bp.route(f"{P}/dashboard", methods=["GET"])
@portal_endpoint(group_aware=True, response=DashboardBody)
def portal_dashboard(ctx):
    """Projects, task counts, financial totals, recent activity, milestones and announcements (group-aware)"""
    return service.dashboard(ctx)


@bp.route(f"{P}/projects", methods=["GET"])
@portal_endpoint(query=PortalProjectListQuery, response=ProjectsBody)
def portal_list_projects(ctx, query: PortalProjectListQuery):
    """The company's projects (filter: status) with their task counts"""
    projects, counts = service.list_projects(ctx, company_ids=[ctx.portal.company_id], status=query.status)
    return {"projects": projects, "taskCounts": counts}


@bp.route(f"{P}/projects/{{project_id}}", methods=["GET"])
@portal_endpoint(response=ProjectDetailBody)
def portal_get_project(ctx, project_id: str):
    """A project of the company with its goals, members, AI summary and decisions"""
    # too long to answer together (6 MB): the goals cut first (the portal has no other read of them), then the
    # decisions in the room left (all of them: GET .../decisions, paged); a list cut says how many rows it carries
    return FitBody("goals", service.project_detail(ctx, project_id=project_id), limit_key="goals_limit",
                   then=(("decisions", "decisions_limit"),))


@bp.route(f"{P}/projects/{{project_id}}/tasks", methods=["GET"])
@portal_endpoint(query=PageQuery, response=paged("tasks", PortalTaskRead))
def portal_project_tasks(ctx, project_id: str, query: PageQuery):
    """The project's non-private tasks with status, priority, type and assignee, in list order (`limit` at most
    500 and `offset`, with `total`; a page too long to answer carries fewer rows, its `limit` says how many)"""
    return service.project_tasks(ctx, project_id=project_id, query=query).body("tasks")


@bp.route(f"{P}/projects/{{project_id}}/roadmap", methods=["GET"])
@portal_endpoint(response=RoadmapBody)
def portal_project_roadmap(ctx, project_id: str):
    """The project's roadmap and its items (null and [] when it has none); items too long to answer together
    (6 MB) are cut to the first that fit, `items_limit` then saying how many"""
    roadmap, items = service.project_roadmap(ctx, project_id=project_id)
    return FitBody("items", {"roadmap": roadmap, "items": items}, limit_key="items_limit")


@bp.route(f"{P}/projects/{{project_id}}/decisions", methods=["GET"])
@portal_endpoint(query=PageQuery, response=paged("decisions", PortalDecisionRead))
def portal_project_decisions(ctx, project_id: str, query: PageQuery):
    """The project's decisions with the decider's name (`limit` at most 500 and `offset`, with `total`)"""
    return service.project_decisions(ctx, project_id=project_id, query=query).body("decisions")


@bp.route(f"{P}/budgets", methods=["GET"])
@portal_endpoint(group_aware=True, response=many("budgets", PortalBudgetRead))
def portal_list_budgets(ctx):
    """Budgets linked to the client's projects or deals (group-aware)"""
    return {"budgets": service_budgets.list_budgets(ctx)}


@bp.route(f"{P}/budgets/{{budget_id}}", methods=["GET"])
@portal_endpoint(response=BudgetDetailBody)
def portal_get_budget(ctx, budget_id: str):
    """A budget of the client with its line items"""
    budget, items = service_budgets.budget_detail(ctx, budget_id=budget_id)
    return {"budget": budget, "lineItems": items}


@bp.route(f"{P}/budgets/{{budget_id}}/approve", methods=["POST"])
@portal_endpoint(write=True, errors=(409,), response=OkResponse)
def portal_approve_budget(ctx, budget_id: str):
    """Approve a budget pending approval (collaborator or admin): history logged, the owner notified"""
    service_budgets.approve_budget(ctx, budget_id=budget_id)
    return {"ok": True}


@bp.route(f"{P}/invoices", methods=["GET"])
@portal_endpoint(group_aware=True, response=many("invoices", PortalInvoiceRead))
def portal_list_invoices(ctx):
    """The client's issued invoices (approved, sent, paid), newest first (group-aware)"""
    return {"invoices": service_invoices.list_invoices(ctx)}


@bp.route(f"{P}/invoices/{{invoice_id}}", methods=["GET"])
@portal_endpoint(response=InvoiceDetailBody)
def portal_get_invoice(ctx, invoice_id: str):
    """An issued invoice of the company with its line items and payments"""
    invoice, items, payments = service_invoices.invoice_detail(ctx, invoice_id=invoice_id)
    return {"invoice": invoice, "lineItems": items, "payments": payments}


@bp.route(f"{P}/contracts", methods=["GET"])
@portal_endpoint(group_aware=True, response=many("contracts", PortalContractRead))
def portal_list_contracts(ctx):
    """Contracts of which any signer's e-mail belongs to a contact of the company (group-aware)"""
    return {"contracts": service_clients.contracts(ctx)}


@bp.route(f"{P}/pages", methods=["GET"])
@portal_endpoint(group_aware=True, response=many("pages", PortalPageRead))
def portal_list_pages(ctx):
    """Published pages linked to the company or its projects (group-aware)"""
    return {"pages": service.pages(ctx)}


@bp.route(f"{P}/pages/{{page_id}}", methods=["GET"])
@portal_endpoint(response=one("page", PortalPageDetail))
def portal_get_page(ctx, page_id: str):
    """A published page of the company with its rich content"""
    return {"page": service.page(ctx, page_id=page_id)}


@bp.route(f"{P}/notes", methods=["GET"])
@portal_endpoint(group_aware=True, response=many("notes", PortalNoteRead))
def portal_list_notes(ctx):
    """Client-visible notes on the company's projects, deals and budgets, newest first, at most 100 (group-aware)"""
    return {"notes": service_notes.list_notes(ctx)}


@bp.route(f"{P}/notes", methods=["POST"])
@portal_endpoint(write=True, body=PortalNoteCreate, status=201, errors=(409, 429), response=IdBody)
def portal_create_note(ctx, body: PortalNoteCreate):
    """A client's note (or reply) on a project or invoice of the company (collaborator or admin); at most 500 a
    record (409), at most 60 notes an hour per company (429)"""
    return {"id": service_notes.create_note(ctx, data=body)}


@bp.route(f"{P}/history", methods=["GET"])
@portal_endpoint(response=many("history", PortalHistoryRead))
def portal_history(ctx):
    """The newest 50 history entries of the company's projects, budgets and invoices"""
    return {"history": service.history(ctx)}


@bp.route(f"{P}/team", methods=["GET"])
@portal_endpoint(group_aware=True, response=TeamBody)
def portal_team(ctx):
    """The team and leads across the company's active projects (group-aware)"""
    members, leads = service.team(ctx)
    return {"team": members, "leads": leads}


@bp.route(f"{P}/announcements", methods=["GET"])
@portal_endpoint(response=many("announcements", PortalAnnouncementRead))
def portal_announcements(ctx):
    """The latest 20 announcements of category company"""
    return {"announcements": service.announcements(ctx)}


@bp.route(f"{P}/requests", methods=["POST"])
@portal_endpoint(write=True, body=PortalRequestCreate, status=201, errors=(429,), response=RequestCreated)
def portal_create_request(ctx, body: PortalRequestCreate):
    """A client request: a task in the project, its SLA when the project has a policy, the delivery manager
    notified (collaborator or admin); at most 30 an hour per company (429)"""
    return {"taskId": service_requests.create_request(ctx, data=body), "ok": True}


@bp.route(f"{P}/questionnaire", methods=["GET"])
@portal_endpoint(response=one("profile", QuestionnaireRead))
def portal_get_questionnaire(ctx):
    """The client's questionnaire answers and client goals"""
    return {"profile": service_requests.get_questionnaire(ctx)}


@bp.route(f"{P}/questionnaire", methods=["POST"])
@portal_endpoint(write=True, body=QuestionnaireSubmit, errors=(409,), response=OkResponse)
def portal_submit_questionnaire(ctx, body: QuestionnaireSubmit):
    """Save the questionnaire; its goals replace those it created before; the delivery manager is notified on
    the first completion (collaborator or admin)"""
    service_requests.submit_questionnaire(ctx, data=body)
    return {"ok": True}


@bp.route(f"{P}/qbrs", methods=["GET"])
@portal_endpoint(response=many("qbrs", PortalQbrRead))
def portal_qbrs(ctx):
    """Presented quarterly business reviews, sections filtered by portal visibility"""
    return {"qbrs": service_qbrs.portal_qbrs(ctx)}


@bp.route(f"{P}/onboarding", methods=["GET"])
@portal_endpoint(response=OnboardingBody)
def portal_onboarding(ctx):
    """The company's onboarding progress: stages and milestones, counts, percentage, current stage"""
    return service_clients.onboarding(ctx)


# ---------------------------------------------------------------- portal notifications

@bp.route(f"{P}/notifications", methods=["GET"])
@portal_endpoint(needs_user=True, query=PortalNotificationListQuery, response=NotificationsBody)
def portal_notifications(ctx, query: PortalNotificationListQuery):
    """The portal user's notifications (filter all, unread or archived; limit default 50, at most 100)"""
    return {"notifications": service_notifications.list_notifications(ctx, query=query), "limit": query.limit,
            "offset": query.offset}


@bp.route(f"{P}/notifications/unread-count", methods=["GET"])
@portal_endpoint(needs_user=True, response=PortalUnreadCount)
def portal_unread_count(ctx):
    """The portal user's unread, unarchived notification count"""
    return {"unread_count": service_notifications.unread_count(ctx)}


@bp.route(f"{P}/notifications/{{notification_id}}/read", methods=["POST"])
@portal_endpoint(needs_user=True, response=OkResponse)
def portal_read_notification(ctx, notification_id: str):
    """Mark one of the portal user's notifications read"""
    service_notifications.mark_read(ctx, notification_id=notification_id)
    return {"ok": True}


@bp.route(f"{P}/notifications/read-all", methods=["POST"])
@portal_endpoint(needs_user=True, response=OkResponse)
def portal_read_all_notifications(ctx):
    """Mark all the portal user's notifications read"""
    service_notifications.mark_all_read(ctx)
    return {"ok": True}


@bp.route(f"{P}/notifications/preferences", methods=["GET"])
@portal_endpoint(needs_user=True, response=many("preferences", PortalPreferenceRead))
def portal_get_preferences(ctx):
    """The portal delivery types merged with the user's saved preferences (in-app and e-mail only)"""
    return {"preferences": service_notifications.preferences(ctx)}


@bp.route(f"{P}/notifications/preferences", methods=["PUT"])
@portal_endpoint(needs_user=True, body=PortalPreferencesUpdate, response=OkResponse)
def portal_update_preferences(ctx, body: PortalPreferencesUpdate):
    """Save the portal user's preferences of the types sent"""
    service_notifications.update_preferences(ctx, data=body)
    return {"ok": True}


# ---------------------------------------------------------------- staff: QBRs and client goals

C = "/api/clients/{company_id}"


@bp.route(f"{C}/qbrs", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=many("qbrs", QbrRead))
def staff_list_qbrs(ctx, company_id: str):
    """A client's QBRs with their sections, newest quarter first"""
    return {"qbrs": service_qbrs.list_qbrs(ctx, company_id=company_id)}


@bp.route(f"{C}/qbrs", methods=["POST"])
@endpoint(tool="deals", level="update", body=QbrCreate, status=201, response=one("qbr", QbrRead))
def staff_create_qbr(ctx, company_id: str, body: QbrCreate):
    """Create a client's QBR (draft) with its sections, each with its portal visibility"""
    return {"qbr": service_qbrs.create_qbr(ctx, company_id=company_id, data=body)}


@bp.route(f"{C}/qbrs/{{qbr_id}}", methods=["GET"])
@endpoint(tool="deals", level="view", response=one("qbr", QbrRead))
def staff_get_qbr(ctx, company_id: str, qbr_id: str):
    """A client's QBR with its sections"""
    return {"qbr": service_qbrs.get_qbr(ctx, company_id=company_id, qbr_id=qbr_id)}


@bp.route(f"{C}/qbrs/{{qbr_id}}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=QbrUpdate, response=one("qbr", QbrRead))
def staff_update_qbr(ctx, company_id: str, qbr_id: str, body: QbrUpdate):
    """Edit a QBR; `sections`, when given, replaces every section"""
    return {"qbr": service_qbrs.update_qbr(ctx, company_id=company_id, qbr_id=qbr_id, data=body)}


@bp.route(f"{C}/qbrs/{{qbr_id}}/present", methods=["POST"])
@endpoint(tool="deals", level="update", errors=(409,), response=one("qbr", QbrRead))
def staff_present_qbr(ctx, company_id: str, qbr_id: str):
    """Mark a QBR presented: the portal shows it from now on (409 when presented already)"""
    return {"qbr": service_qbrs.present_qbr(ctx, company_id=company_id, qbr_id=qbr_id)}


@bp.route(f"{C}/qbrs/{{qbr_id}}", methods=["DELETE"])
@endpoint(tool="deals", level="manage", response=OkResponse)
def staff_delete_qbr(ctx, company_id: str, qbr_id: str):
    """Delete a QBR and its sections"""
    service_qbrs.delete_qbr(ctx, company_id=company_id, qbr_id=qbr_id)
    return {"ok": True}


@bp.route(f"{C}/goals", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=many("goals", ClientGoalRead))
def staff_list_goals(ctx, company_id: str):
    """A client's goals (metric, target, unit, period), those of the questionnaire included"""
    return {"goals": service_qbrs.list_goals(ctx, company_id=company_id)}


@bp.route(f"{C}/goals", methods=["POST"])
@endpoint(tool="deals", level="update", body=ClientGoalCreate, status=201, errors=(409,),
          response=one("goal", ClientGoalRead))
def staff_create_goal(ctx, company_id: str, body: ClientGoalCreate):
    """Create a client goal"""
    return {"goal": service_qbrs.create_goal(ctx, company_id=company_id, data=body)}


@bp.route(f"{C}/goals/{{client_goal_id}}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=ClientGoalUpdate, response=one("goal", ClientGoalRead))
def staff_update_goal(ctx, company_id: str, client_goal_id: str, body: ClientGoalUpdate):
    """Edit a client goal"""
    return {"goal": service_qbrs.update_goal(ctx, company_id=company_id, goal_id=client_goal_id, data=body)}


@bp.route(f"{C}/goals/{{client_goal_id}}", methods=["DELETE"])
@endpoint(tool="deals", level="manage", response=OkResponse)
def staff_delete_goal(ctx, company_id: str, client_goal_id: str):
    """Delete a client goal"""
    service_qbrs.delete_goal(ctx, company_id=company_id, goal_id=client_goal_id)
    return {"ok": True}


# ---------------------------------------------------------------- connected ad platforms and results
# (issue 19 item 4; docs/decisions/portal.md, "Connected platforms and results")

from chalice import Cron  # noqa: E402

from . import jobs, service_connections, service_results  # noqa: E402
from .schemas_results import (AdConnectionCreate, AdConnectionRead, AdConnectionsBody,  # noqa: E402
                              CampaignResultsQuery, CampaignsBody, ResultsAnswer, ResultsBody, ResultsQuery,
                              ResultsQuestion, SyncStarted)


@bp.route(f"{P}/connections", methods=["GET"])
@portal_endpoint(response=AdConnectionsBody)
def portal_list_connections(ctx):
    """The client's connected ad platforms and store (never their credentials); an empty list with
    dashboard_enabled 0 when the client's results dashboard is not enabled"""
    return {"connections": service_connections.list_connections(ctx),
            "dashboard_enabled": 1 if ctx.portal.profile.get("dashboard_enabled") else 0}


@bp.route(f"{P}/connections", methods=["POST"])
@portal_endpoint(write=True, body=AdConnectionCreate, status=201, errors=(400, 409, 429, 502, 504),
                 response=one("connection", AdConnectionRead))
def portal_create_connection(ctx, body: AdConnectionCreate):
    """Connect an ad platform or store (google_ads, meta_ads, shopify): the credentials are tested against the
    platform (400 when refused, nothing stored), stored encrypted, and the delivery manager notified
    (collaborator or admin; 403 when the dashboard is not enabled); at most 10 an hour per company (429)"""
    return {"connection": service_connections.create_connection(ctx, data=body)}


@bp.route(f"{P}/connections/sync", methods=["POST"])
@portal_endpoint(write=True, status=202, response=SyncStarted)
def portal_sync_connections(ctx):
    """Start a sync of all the client's connected platforms; it runs after the request (collaborator or admin)"""
    return {"message": service_connections.request_sync(ctx)}


@bp.route(f"{P}/connections/{{ad_connection_id}}", methods=["DELETE"])
@portal_endpoint(write=True, errors=(409,), response=OkResponse)
def portal_delete_connection(ctx, ad_connection_id: str):
    """Disconnect a platform and drop its synced figures; agency-managed connections answer 409 (collaborator
    or admin)"""
    service_connections.delete_connection(ctx, connection_id=ad_connection_id)
    return {"ok": True}


@bp.route(f"{P}/results", methods=["GET"])
@portal_endpoint(query=ResultsQuery, response=ResultsBody)
def portal_results(ctx, query: ResultsQuery):
    """Each metric of the period (week, month default, quarter, year ending at period_end, default today) with
    the prior period, delta_pct, the client goal's target and a tracking status"""
    return service_results.results(ctx, query=query)


@bp.route(f"{P}/results/campaigns", methods=["GET"])
@portal_endpoint(query=CampaignResultsQuery, errors=(403,), response=CampaignsBody)
def portal_results_campaigns(ctx, query: CampaignResultsQuery):
    """The period's campaigns (filter: platform) sorted by sort_by (default spend) and sort_dir, with totals"""
    return service_results.campaigns(ctx, query=query)


@bp.route(f"{P}/results/ask", methods=["POST"])
@portal_endpoint(body=ResultsQuestion, query=ResultsQuery, errors=(400, 403, 429, 502, 504), response=ResultsAnswer)
def portal_results_ask(ctx, body: ResultsQuestion, query: ResultsQuery):
    """A natural-language answer about the client's performance, from this client's figures of the period only
    (503 when AI is not configured)"""
    return {"answer": service_results.ask(ctx, question=body.question, query=query)}


@bp.route(f"{C}/connections", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=many("connections", AdConnectionRead))
def staff_list_connections(ctx, company_id: str):
    """A client's connected ad platforms (the client's own and the agency-managed ones), never their credentials"""
    return {"connections": service_connections.staff_list(ctx, company_id=company_id)}


@bp.route(f"{C}/connections", methods=["POST"])
@endpoint(tool="deals", level="update", body=AdConnectionCreate, status=201, errors=(404, 409, 502, 503, 504),
          response=one("connection", AdConnectionRead))
def staff_create_connection(ctx, company_id: str, body: AdConnectionCreate):
    """Connect an agency-managed ad platform for a client: tested first, stored encrypted; the portal cannot
    remove it"""
    return {"connection": service_connections.staff_create(ctx, company_id=company_id, data=body)}


@bp.route(f"{C}/connections/{{ad_connection_id}}", methods=["DELETE"])
@endpoint(tool="deals", level="manage", response=OkResponse)
def staff_delete_connection(ctx, company_id: str, ad_connection_id: str):
    """Remove any connection of a client, agency-managed or not, with its synced figures"""
    service_connections.staff_delete(ctx, company_id=company_id, connection_id=ad_connection_id)
    return {"ok": True}


@bp.schedule(Cron(30, 15, "*", "*", "?", "*"))
def adplatforms_sync(event):
    """Daily: sync the connected ad platforms' recent days (upsert per connection, campaign and day)."""
    return jobs.adplatforms_sync()
