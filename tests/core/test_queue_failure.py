"""A queue send that fails after commit (issue 10 item 1): the request still succeeds, the failure is
logged as an error with the delivery ids, and the notifications-drain job delivers them later."""
import logging
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.notify_models import NotificationDelivery
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def assigned_while_the_queue_refuses(api, db, caplog, *, logged_with: str = "") -> list:
    """A task assigned while the queue does not take its message: the update answers 200, the assignee's deliveries
    stay pending and their ids are logged (in a wms.notify line holding `logged_with`). Answers the deliveries."""
    boss = make_user(db, access_level="executive")
    assignee = make_user(db)
    task = make_task(db, created_by=boss.id)
    with caplog.at_level(logging.ERROR, logger="wms.notify"):
        response = api.put(f"/api/tasks/{task.id}", as_=boss, json={"assignee_id": assignee.id})
    assert response.status == 200, response
    deliveries = db.scalars(select(NotificationDelivery).where(NotificationDelivery.user_id == assignee.id)).all()
    assert deliveries and {d.status for d in deliveries} == {"pending"}
    logged = " ".join(record.getMessage() for record in caplog.records
                      if record.name == "wms.notify" and logged_with in record.getMessage())
    assert all(d.id in logged for d in deliveries), logged
    return deliveries


def test_failed_send_is_logged_with_delivery_ids_and_drained_later(api, db, aws, set_env, caplog):
    set_env(NOTIFICATIONS_QUEUE_URL=aws["queue_url"].rsplit("/", 1)[0] + "/no-such-queue")
    deliveries = assigned_while_the_queue_refuses(api, db, caplog)

    from chalicelib.areas.notifications.jobs import drain_pending

    db.execute(update(NotificationDelivery).where(NotificationDelivery.id.in_([d.id for d in deliveries]))
               .values(created_at=utcnow() - timedelta(minutes=5)))
    result = drain_pending()
    assert result["processed"] >= len(deliveries)
    db.expire_all()
    assert all(db.get(NotificationDelivery, d.id).status in ("sent", "skipped") for d in deliveries)
    assert any(db.get(NotificationDelivery, d.id).status == "sent" for d in deliveries)
