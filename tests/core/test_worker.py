"""The local worker and the job list (issue 10 item 2): `cli worker` consumes the notifications queue
(moto here, a moto server or AWS in use) with the handler the Lambda runs, deleting what it delivered
and leaving what failed; `cli job --list` prints every scheduled job with its schedule."""
import json

from sqlalchemy import select

from chalicelib import cli
from chalicelib.core.notify_models import NotificationDelivery
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def queued(aws) -> int:
    attributes = aws["sqs"].get_queue_attributes(
        QueueUrl=aws["queue_url"], AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])
    values = attributes["Attributes"]
    return int(values["ApproximateNumberOfMessages"]) + int(values["ApproximateNumberOfMessagesNotVisible"])


def _assigned_with_a_subscription(api, db):
    """A task assigned by an executive (through the API) to a user with a push subscription: the assignee's
    deliveries."""
    boss = make_user(db, access_level="executive")
    assignee = make_user(db)
    from tests.core.test_notify import make_subscription

    make_subscription(db, assignee)
    task = make_task(db, created_by=boss.id)
    assert api.put(f"/api/tasks/{task.id}", as_=boss, json={"assignee_id": assignee.id}).status == 200
    return db.scalars(select(NotificationDelivery).where(NotificationDelivery.user_id == assignee.id)).all()


def test_a_task_assignment_is_queued_and_the_worker_delivers_it(api, db, aws, capsys):
    deliveries = _assigned_with_a_subscription(api, db)
    assert deliveries and {d.status for d in deliveries} == {"pending"}
    assert queued(aws) == len(deliveries)

    assert cli.main(["worker", "--once"]) == 0
    out, err = capsys.readouterr()
    counts = json.loads(out)
    assert counts["received"] == len(deliveries) and counts["deleted"] == len(deliveries) and counts["failed"] == 0
    # what the person running `make worker` sees: the queue it polls, then one line per batch
    assert err.splitlines() == [f"worker: polling {aws['queue_url']} until it is empty",
                                f"worker: {len(deliveries)} handled, 0 failed (left on the queue)"]
    db.expire_all()
    assert {db.get(NotificationDelivery, d.id).status for d in deliveries} == {"sent"}
    assert queued(aws) == 0


def test_a_message_that_fails_stays_on_the_queue(aws, capsys):
    aws["sqs"].send_message(QueueUrl=aws["queue_url"], MessageBody="not json")
    assert cli.main(["worker", "--once"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["received"], counts["deleted"], counts["failed"]) == (1, 0, 1)
    assert queued(aws) == 1  # back after its visibility timeout; the DLQ after five receives


def test_the_worker_without_a_queue_url_says_what_to_set(set_env, capsys):
    set_env(NOTIFICATIONS_QUEUE_URL="")
    assert cli.main(["worker", "--once"]) == 2
    assert "NOTIFICATIONS_QUEUE_URL" in capsys.readouterr().err


def test_job_list_prints_every_scheduled_job_with_its_schedule(app, capsys):
    assert cli.main(["job", "--list"]) == 0
    out = capsys.readouterr().out
    scheduled = [source for source in app.event_sources if type(source).__name__ == "ScheduledEventConfig"]
    assert scheduled
    for source in scheduled:
        line = next(line for line in out.splitlines() if line.startswith(source.name.replace("_", "-")))
        assert source.schedule_expression.to_string() in line
    assert "rate(15 minutes)" in out


def test_an_unknown_job_is_refused_with_the_known_ones(capsys):
    assert cli.main(["job", "no-such-job"]) == 2
    assert "notifications-drain" in capsys.readouterr().err


def test_local_aws_creates_the_bucket_and_queues_and_prints_the_settings(set_env, capsys):
    from moto import mock_aws

    set_env(AWS_ENDPOINT_URL="")
    assert cli.main(["local-aws"]) == 2  # no moto server named: refuses to touch a real account
    assert "AWS_ENDPOINT_URL" in capsys.readouterr().err
    with mock_aws():
        from chalicelib.core.aws import reset_clients

        reset_clients()
        assert cli.main(["local-aws", "--real-aws", "--bucket", "b-local", "--queue", "q-local"]) == 0
        out = capsys.readouterr().out
        assert "export UPLOADS_BUCKET=b-local" in out and "q-local" in out
        import boto3

        sqs = boto3.client("sqs", region_name="ap-southeast-2")
        urls = sqs.list_queues()["QueueUrls"]
        assert any(url.endswith("/q-local") for url in urls) and any(url.endswith("/q-local-dlq") for url in urls)
        assert cli.main(["local-aws", "--real-aws", "--bucket", "b-local", "--queue", "q-local"]) == 0  # again: fine
        reset_clients()


def test_preflight_names_a_busy_port_in_one_line(capsys):
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert cli.main(["preflight", "--port", str(port)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"port {port}" in err and "Traceback" not in err


def test_preflight_lets_make_run_restart_while_the_last_server_s_connections_linger(capsys):
    """A stopped `make run` leaves its closed connections in TIME_WAIT for a minute; chalice local binds
    with SO_REUSEADDR and starts again, so the check must not call the port busy."""
    import socket

    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as http.server does
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    connection, _ = server.accept()
    connection.close()  # the server closes first: its side waits in TIME_WAIT
    client.recv(1)
    client.close()
    server.close()
    assert cli.main(["preflight", "--port", str(port)]) == 0, capsys.readouterr().err


def test_preflight_names_an_unreachable_database_in_one_line(set_env, capsys):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    set_env(DATABASE_URL=f"postgresql://wms:secret-pass@127.0.0.1:{dead}/wms")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    assert cli.main(["preflight", "--port", str(free)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unreachable" in err and "secret-pass" not in err


def test_preflight_passes_on_a_free_port_and_a_live_database(capsys):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    assert cli.main(["preflight", "--port", str(free)]) == 0


def test_a_mixed_batch_deletes_what_was_delivered_and_keeps_what_failed(api, db, aws, capsys):
    deliveries = _assigned_with_a_subscription(api, db)
    aws["sqs"].send_message(QueueUrl=aws["queue_url"], MessageBody=json.dumps({"no": "delivery id"}))
    assert queued(aws) == len(deliveries) + 1

    assert cli.main(["worker", "--once"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["received"], counts["deleted"], counts["failed"]) == (len(deliveries) + 1, len(deliveries), 1)
    db.expire_all()
    assert {db.get(NotificationDelivery, d.id).status for d in deliveries} == {"sent"}
    assert queued(aws) == 1  # only the failed one stays (invisible until its visibility timeout ends)


def test_the_bounded_drain_long_polls_so_a_real_queue_is_not_left_half_read(aws, capsys):
    """`worker --once` stops at the first empty receive; a short poll (WaitTimeSeconds=0) samples only
    some SQS servers and may answer empty while messages wait, so every receive long-polls."""
    from chalicelib.core.aws import client

    waits = []
    sqs = client("sqs")
    hook = lambda params, **kwargs: waits.append(params.get("WaitTimeSeconds"))  # noqa: E731
    sqs.meta.events.register("provide-client-params.sqs.ReceiveMessage", hook)
    try:
        aws["sqs"].send_message(QueueUrl=aws["queue_url"], MessageBody=json.dumps({"delivery_id": "missing"}))
        assert cli.main(["worker", "--once"]) == 0
    finally:
        sqs.meta.events.unregister("provide-client-params.sqs.ReceiveMessage", hook)
    assert json.loads(capsys.readouterr().out)["deleted"] == 1
    assert len(waits) == 2 and all(wait and wait >= 1 for wait in waits), waits
