"""Notifications routes: the caller's notifications, preferences, push subscriptions; squad
configuration (executive); usage analytics (insights:view); the delivery queue worker."""
import os

from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import many, paged

from . import jobs, service, service_squads, service_usage
from .schemas import (NotificationListQuery, NotificationRead, NotificationTypeRead, PreferenceRead, PreferencesUpdate,
                      PushPublicKey, PushSubscribe, PushSubscriptionRead, PushUnsubscribe, SquadConfigRead,
                      SquadConfigUpdate, SquadConfigUpdated, SuccessResponse, UnreadCount, UsageByType, UsageChannels,
                      UsageDailyTrend, UsageQuery, UsageReadRates, UsageSummary)

bp = Blueprint(__name__)
OK = {"success": True}


@bp.route("/api/notifications", methods=["GET"])
@endpoint(query=NotificationListQuery, response=paged("notifications", NotificationRead))
def list_notifications(ctx, query: NotificationListQuery):
    """List own notifications (`limit` at most 100, default 50, and `offset`, with `total`)"""
    return service.list_notifications(ctx, query=query).body("notifications")


@bp.route("/api/notifications/unread-count", methods=["GET"])
@endpoint(response=UnreadCount)
def unread_count(ctx):
    """Count own unread, non-archived notifications"""
    return {"unread_count": service.unread_count(ctx)}


@bp.route("/api/notifications/{notification_id}/read", methods=["POST"])
@endpoint(errors=(404,), response=SuccessResponse)
def mark_read(ctx, notification_id: str):
    """Mark one notification read"""
    service.mark_read(ctx, notification_id=notification_id)
    return OK


@bp.route("/api/notifications/read-all", methods=["POST"])
@endpoint(response=SuccessResponse)
def mark_all_read(ctx):
    """Mark all own notifications read"""
    service.mark_all_read(ctx)
    return OK


@bp.route("/api/notifications/{notification_id}/archive", methods=["POST"])
@endpoint(errors=(404,), response=SuccessResponse)
def archive(ctx, notification_id: str):
    """Archive one notification"""
    service.archive(ctx, notification_id=notification_id)
    return OK


@bp.route("/api/notifications/archive-read", methods=["POST"])
@endpoint(response=SuccessResponse)
def archive_read(ctx):
    """Archive all own read notifications"""
    service.archive_read(ctx)
    return OK


@bp.route("/api/notifications/preferences", methods=["GET"])
@endpoint(response=many("preferences", PreferenceRead))
def get_preferences(ctx):
    """Own preferences: every type with effective channels"""
    return {"preferences": service.preferences(ctx)}


@bp.route("/api/notifications/preferences", methods=["PUT"])
@endpoint(body=PreferencesUpdate, response=SuccessResponse)
def update_preferences(ctx, body: PreferencesUpdate):
    """Update own preferences"""
    service.update_preferences(ctx, data=body)
    return OK


@bp.route("/api/notifications/types", methods=["GET"])
@endpoint(response=many("types", NotificationTypeRead))
def list_types(ctx):
    """The notification type catalogue"""
    return {"types": service.types()}


@bp.route("/api/notifications/push/public-key", methods=["GET"])
@endpoint(errors=(503,), response=PushPublicKey)
def push_public_key(ctx):
    """The VAPID public key browsers subscribe with"""
    return {"vapidPublicKey": service.push_public_key()}


@bp.route("/api/notifications/push/subscribe", methods=["POST"])
@endpoint(body=PushSubscribe, response=SuccessResponse)
def push_subscribe(ctx, body: PushSubscribe):
    """Register a push subscription"""
    service.subscribe(ctx, data=body)
    return OK


@bp.route("/api/notifications/push/unsubscribe", methods=["POST"])
@endpoint(body=PushUnsubscribe, response=SuccessResponse)
def push_unsubscribe(ctx, body: PushUnsubscribe):
    """Remove a push subscription"""
    service.delete_subscription(ctx, endpoint=body.endpoint)
    return OK


@bp.route("/api/notifications/push/subscriptions", methods=["GET"])
@endpoint(response=many("subscriptions", PushSubscriptionRead))
def push_subscriptions(ctx):
    """List own push subscriptions"""
    return {"subscriptions": service.subscriptions(ctx)}


@bp.route("/api/notifications/squads/{squad_id}/config", methods=["GET"])
@endpoint(access=("executive",), errors=(404,), response=many("config", SquadConfigRead))
def get_squad_config(ctx, squad_id: str):
    """A squad's notification configuration"""
    return {"config": service_squads.get_config(ctx, squad_id=squad_id)}


@bp.route("/api/notifications/squads/{squad_id}/config", methods=["PUT"])
@endpoint(access=("executive",), body=SquadConfigUpdate, errors=(404,), response=SquadConfigUpdated)
def update_squad_config(ctx, squad_id: str, body: SquadConfigUpdate):
    """Update a squad's notification configuration"""
    updated = service_squads.update_config(ctx, squad_id=squad_id, data=body)
    return {"success": True, "updated": updated}


@bp.route("/api/usage/notifications/summary", methods=["GET"])
@endpoint(tool="insights", level="view", query=UsageQuery, response=UsageSummary)
def usage_summary(ctx, query: UsageQuery):
    """Notification usage summary"""
    return {"days": query.days, **service_usage.summary(ctx, days=query.days)}


@bp.route("/api/usage/notifications/by-type", methods=["GET"])
@endpoint(tool="insights", level="view", query=UsageQuery, response=UsageByType)
def usage_by_type(ctx, query: UsageQuery):
    """Notifications sent per type"""
    return {"days": query.days, "types": service_usage.by_type(ctx, days=query.days)}


@bp.route("/api/usage/notifications/daily-trend", methods=["GET"])
@endpoint(tool="insights", level="view", query=UsageQuery, response=UsageDailyTrend)
def usage_daily_trend(ctx, query: UsageQuery):
    """Notifications sent per day"""
    return {"days": query.days, "trend": service_usage.daily_trend(ctx, days=query.days)}


@bp.route("/api/usage/notifications/channel-distribution", methods=["GET"])
@endpoint(tool="insights", level="view", query=UsageQuery, response=UsageChannels)
def usage_channel_distribution(ctx, query: UsageQuery):
    """Deliveries per channel and status"""
    return {"days": query.days, "channels": service_usage.channel_distribution(ctx, days=query.days)}


@bp.route("/api/usage/notifications/read-rates", methods=["GET"])
@endpoint(tool="insights", level="view", query=UsageQuery, response=UsageReadRates)
def usage_read_rates(ctx, query: UsageQuery):
    """Read rate per type"""
    return {"days": query.days, "read_rates": service_usage.read_rates(ctx, days=query.days)}


@bp.on_sqs_message(queue=os.environ.get("NOTIFICATIONS_QUEUE_NAME", "wms-notifications"), batch_size=1)
def notifications_worker(event):
    """Deliver queued notification messages; answers SQS's partial batch failures. One message an invocation: a
    delivery may take up to notify_delivery.DELIVERY_SECONDS, and ten of them outlasted the function's timeout,
    sending the whole batch back to the queue (session 23)."""
    return jobs.handle_queue_event(event)


@bp.schedule(Rate(15, unit=Rate.MINUTES))
def notifications_drain(event):
    """Retry lost and failed notification deliveries."""
    return jobs.drain_pending()


@bp.schedule(Rate(1, unit=Rate.DAYS))
def notifications_purge(event):
    """Daily: delete final deliveries past their retention and provider uses older than a day."""
    return jobs.notifications_purge()
