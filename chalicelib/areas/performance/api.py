"""Performance (base /api/performance, tool `performance`): cycles, review templates, reviews, peer feedback
and alerts. Review templates are the small CRUD of decisions.md section 6 (docs/decisions/performance.md)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one

from . import service, service_feedback, service_reviews
from .schemas import (AlertsRead, BulkFeedbackRead, CycleCreate, CycleDetailRead, CycleRead, CycleUpdate,
                      FeedbackBulkCreate, FeedbackRequestCreate, FeedbackRequestRead, FeedbackResponseCreate,
                      FeedbackResponseRead, FeedbackSummaryQuery, FeedbackSummaryRead, HistoryRead, MyGoalsRead,
                      PreviousGoalsUpdate, ReviewCreate, ReviewDetail, ReviewListQuery, ReviewRead, ReviewUpdate,
                      ReviewTemplateAssign, ReviewTemplateCreate, ReviewTemplateRead, ReviewTemplateUpdate)

bp = Blueprint(__name__)
BASE = "/api/performance"
MANAGER_OR_ABOVE = ("manager", "head", "executive")


# ---------------------------------------------------------------- cycles

@bp.route(f"{BASE}/cycles", methods=["GET"])
@endpoint(tool="performance", level="view", response=many("cycles", CycleRead))
def list_cycles(ctx):
    """Review cycles, newest period first; non-executives see only open and closed cycles"""
    return {"cycles": service.list_cycles(ctx)}


@bp.route(f"{BASE}/cycles", methods=["POST"])
@endpoint(tool="performance", level="manage", body=CycleCreate, status=201, response=one("cycle", CycleRead))
def create_cycle(ctx, body: CycleCreate):
    """Create a review cycle (in draft)"""
    return {"cycle": service.create_cycle(ctx, data=body)}


@bp.route(f"{BASE}/cycles/{{cycle_id}}", methods=["GET"])
@endpoint(tool="performance", level="view", response=one("cycle", CycleDetailRead))
def get_cycle(ctx, cycle_id: str):
    """A cycle with its review progress counts (total, completed and per status)"""
    return {"cycle": service.get_cycle(ctx, cycle_id=cycle_id)}


@bp.route(f"{BASE}/cycles/{{cycle_id}}", methods=["PUT"])
@endpoint(tool="performance", level="manage", body=CycleUpdate, response=one("cycle", CycleRead))
def update_cycle(ctx, cycle_id: str, body: CycleUpdate):
    """Update a cycle's name, dates or status (draft -> open -> closed, closed -> open)"""
    return {"cycle": service.update_cycle(ctx, cycle_id=cycle_id, data=body)}


@bp.route(f"{BASE}/cycles/{{cycle_id}}", methods=["DELETE"])
@endpoint(tool="performance", level="manage", response=OkResponse)
def delete_cycle(ctx, cycle_id: str):
    """Delete a draft cycle (400 otherwise)"""
    service.delete_cycle(ctx, cycle_id=cycle_id)
    return {"ok": True}


# ---------------------------------------------------------------- templates

@bp.route(f"{BASE}/templates", methods=["GET"])
@endpoint(tool="performance", level="view", response=many("templates", ReviewTemplateRead))
def list_templates(ctx):
    """Review templates with their KPI items and assigned users"""
    return {"templates": service.list_templates(ctx)}


@bp.route(f"{BASE}/templates", methods=["POST"])
@endpoint(tool="performance", level="manage", body=ReviewTemplateCreate, status=201, response=one("template", ReviewTemplateRead))
def create_template(ctx, body: ReviewTemplateCreate):
    """Create a review template with KPI items (area, label, is_mandatory)"""
    return {"template": service.create_template(ctx, data=body)}


@bp.route(f"{BASE}/templates/{{template_id}}", methods=["GET"])
@endpoint(tool="performance", level="view", response=one("template", ReviewTemplateRead))
def get_template(ctx, template_id: str):
    """A review template"""
    return {"template": service.get_template(ctx, template_id=template_id)}


@bp.route(f"{BASE}/templates/{{template_id}}", methods=["PUT"])
@endpoint(tool="performance", level="manage", body=ReviewTemplateUpdate, response=one("template", ReviewTemplateRead))
def update_template(ctx, template_id: str, body: ReviewTemplateUpdate):
    """Update a review template; `items`, when given, replaces every item"""
    return {"template": service.update_template(ctx, template_id=template_id, data=body)}


@bp.route(f"{BASE}/templates/{{template_id}}", methods=["DELETE"])
@endpoint(tool="performance", level="manage", response=OkResponse)
def delete_template(ctx, template_id: str):
    """Delete a review template (reviews keep their KPI ratings)"""
    service.delete_template(ctx, template_id=template_id)
    return {"ok": True}


@bp.route(f"{BASE}/templates/{{template_id}}/users", methods=["POST"])
@endpoint(tool="performance", level="manage", body=ReviewTemplateAssign, response=one("template", ReviewTemplateRead))
def assign_template(ctx, template_id: str, body: ReviewTemplateAssign):
    """Assign the template to users (replacing each user's earlier template)"""
    return {"template": service.assign_template(ctx, template_id=template_id, data=body)}


@bp.route(f"{BASE}/templates/{{template_id}}/users/{{user_id}}", methods=["DELETE"])
@endpoint(tool="performance", level="manage", response=OkResponse)
def unassign_template(ctx, template_id: str, user_id: str):
    """Remove a user's assignment to the template"""
    service.unassign_template(ctx, template_id=template_id, user_id=user_id)
    return {"ok": True}


# ---------------------------------------------------------------- reviews

@bp.route(f"{BASE}/my-goals", methods=["GET"])
@endpoint(tool="performance", level="view", response=MyGoalsRead)
def my_goals(ctx):
    """The goals of the caller's most recent completed review"""
    return service_reviews.my_goals(ctx)


@bp.route(f"{BASE}/reviews", methods=["GET"])
@endpoint(tool="performance", level="view", query=ReviewListQuery, response=many("reviews", ReviewRead))
def list_reviews(ctx, query: ReviewListQuery):
    """Reviews scoped by access level (filters cycle_id, status)"""
    return {"reviews": service_reviews.list_reviews(ctx, query)}


@bp.route(f"{BASE}/reviews", methods=["POST"])
@endpoint(tool="performance", level="update", body=ReviewCreate, status=201, response=one("review", ReviewRead))
def create_review(ctx, body: ReviewCreate):
    """Create a review in an open cycle, with the user's template KPI items (409 if one exists)"""
    return {"review": service_reviews.create_review(ctx, data=body)}


@bp.route(f"{BASE}/reviews/history/{{user_id}}", methods=["GET"])
@endpoint(tool="performance", level="view", response=many("history", HistoryRead))
def review_history(ctx, user_id: str):
    """A person's completed reviews with pass results and goal outcomes"""
    return {"history": service_reviews.history(ctx, user_id=user_id)}


@bp.route(f"{BASE}/reviews/{{review_id}}", methods=["GET"])
@endpoint(tool="performance", level="view", response=ReviewDetail)
def get_review(ctx, review_id: str):
    """A review with KPI ratings, goals, previous reviews and (annual) the KPI aggregation"""
    return service_reviews.get_review(ctx, review_id=review_id)


@bp.route(f"{BASE}/reviews/{{review_id}}", methods=["PUT"])
@endpoint(tool="performance", level="update", body=ReviewUpdate, response=one("review", ReviewRead))
def update_review(ctx, review_id: str, body: ReviewUpdate):
    """Update a review, its KPI ratings and goals; completion computes the pass result"""
    return {"review": service_reviews.update_review(ctx, review_id=review_id, data=body)}


@bp.route(f"{BASE}/reviews/{{review_id}}/previous-goals", methods=["PUT"])
@endpoint(tool="performance", level="update", body=PreviousGoalsUpdate, response=OkResponse)
def record_previous_goals(ctx, review_id: str, body: PreviousGoalsUpdate):
    """Record the outcomes of goals from the person's earlier reviews"""
    return service_reviews.record_previous_goals(ctx, review_id=review_id, data=body)


@bp.route(f"{BASE}/reviews/{{review_id}}", methods=["DELETE"])
@endpoint(tool="performance", level="manage", response=OkResponse)
def delete_review(ctx, review_id: str):
    """Delete a draft review (400 otherwise)"""
    service_reviews.delete_review(ctx, review_id=review_id)
    return {"ok": True}


# ---------------------------------------------------------------- feedback and alerts

@bp.route(f"{BASE}/feedback/requests", methods=["GET"])
@endpoint(tool="performance", level="view", response=many("requests", FeedbackRequestRead))
def list_feedback_requests(ctx):
    """Pending feedback requests assigned to the caller"""
    return {"requests": service_feedback.list_requests(ctx)}


@bp.route(f"{BASE}/feedback/requests", methods=["POST"])
@endpoint(tool="performance", level="update", body=FeedbackRequestCreate, status=201,
          response=one("request", FeedbackRequestRead))
def create_feedback_request(ctx, body: FeedbackRequestCreate):
    """Ask one reviewer for feedback about a person"""
    return {"request": service_feedback.create_request(ctx, data=body)}


@bp.route(f"{BASE}/feedback/requests/bulk", methods=["POST"])
@endpoint(tool="performance", level="update", body=FeedbackBulkCreate, status=201, response=BulkFeedbackRead)
def create_feedback_requests_bulk(ctx, body: FeedbackBulkCreate):
    """Ask the person's peers (by access level) for feedback"""
    return service_feedback.create_bulk(ctx, data=body)


@bp.route(f"{BASE}/feedback/responses", methods=["POST"])
@endpoint(tool="performance", level="view", body=FeedbackResponseCreate, status=201,
          response=one("response", FeedbackResponseRead))
def submit_feedback_response(ctx, body: FeedbackResponseCreate):
    """Answer a feedback request assigned to the caller (once)"""
    return {"response": service_feedback.respond(ctx, data=body)}


@bp.route(f"{BASE}/feedback/summary/{{user_id}}", methods=["GET"])
@endpoint(tool="performance", level="view", access=MANAGER_OR_ABOVE, query=FeedbackSummaryQuery,
          response=FeedbackSummaryRead)
def feedback_summary(ctx, user_id: str, query: FeedbackSummaryQuery):
    """The anonymised aggregate of a person's feedback (manager access level or above)"""
    return service_feedback.summary(ctx, user_id=user_id, cycle_id=query.cycle_id)


@bp.route(f"{BASE}/alerts", methods=["GET"])
@endpoint(tool="performance", level="view", response=AlertsRead)
def alerts(ctx):
    """The caller's pending reviews, self-assessments, pending feedback and open cycles"""
    return service_feedback.alerts(ctx)
