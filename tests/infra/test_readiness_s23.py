"""Session 23's deployment audit: the packaged template gives each scheduled and queue function the time its code
needs, bounds the queue worker, and lets the database proxy and SES do what the code asks."""
from __future__ import annotations

from chalicelib.core import notify_delivery

MARGIN = 10  # seconds a job's function keeps after its budget, besides the step it may still be taking


def functions(template) -> dict:
    return {n: r["Properties"] for n, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}


def _budgets() -> dict:
    """Each job's time budget (no new work started past it) and the longest step it may then still be in."""
    from chalicelib.areas.action_items import jobs as action_item_jobs
    from chalicelib.areas.agents import jobs as agent_jobs
    from chalicelib.areas.calendar import jobs as calendar_jobs
    from chalicelib.areas.invoices import jobs as invoice_jobs
    from chalicelib.areas.leave import jobs as leave_jobs
    from chalicelib.areas.leave.service_integrations import REVERSE
    from chalicelib.areas.meetings import jobs as meeting_jobs
    from chalicelib.areas.meetings.service_sync import ANALYSES_PER_BATCH
    from chalicelib.areas.notifications import jobs as notification_jobs
    from chalicelib.areas.portal import service_connections
    from chalicelib.areas.proposals import jobs as proposal_jobs
    from chalicelib.areas.tasks import jobs as task_jobs
    from chalicelib.core.settings import Settings

    delivery = notify_delivery.DELIVERY_SECONDS
    call = 25  # a ledger, payroll, planner, calendar or chat call, a retry included
    ai_call = max(30, Settings.model_fields["ai_timeout_seconds"].default)  # service_sync: up to 30 s
    return {
        # a page (one ledger request of 50 ids), then its writes and the run's record
        "LedgerInvoiceSync": (invoice_jobs.LEDGER_SYNC_SECONDS, call + MARGIN),
        # a batch: the AI analysis of each of its new notes, then its writes
        "MeetingsSync": (meeting_jobs.SYNC_SECONDS, ANALYSES_PER_BATCH * ai_call + MARGIN),
        "LeaveCacheRefresh": (leave_jobs.CACHE_REFRESH_SECONDS, call + MARGIN),  # a user, then the batch's writes
        "LeaveReverseAbandoned": (leave_jobs.REVERSE_SECONDS, len(REVERSE) * call),  # a request: each integration
        "NotificationsDrain": (notify_delivery.DRAIN_SECONDS, delivery),
        "NotificationsPurge": (notification_jobs.PURGE_SECONDS, 2 * MARGIN),  # one more batch of each table
        "TaskDueSoon": (task_jobs.DUE_SOON_SECONDS, MARGIN),
        "ProposalAttemptsPurge": (proposal_jobs.PURGE_SECONDS, MARGIN),
        "PlaceCachePurge": (calendar_jobs.PURGE_SECONDS, MARGIN),
        "CalendarInviteScan": (calendar_jobs.SCAN_SECONDS, MARGIN),
        "AdplatformsSync": (service_connections.SYNC_SECONDS, MARGIN),
        "AgentsStaleRuns": (agent_jobs.STALE_SECONDS, MARGIN),  # a batch of runs put back (session 26)
        "ActionItemsUnstarRetry": (action_item_jobs.UNSTAR_SECONDS, call),  # an item: the agent's call
    }


def test_every_job_budget_and_its_last_step_fit_the_functions_timeout(template):
    fns = functions(template)
    tight = {name: f"budget {budget}s + step {step}s + {MARGIN}s > timeout {fns[name]['Timeout']}s"
             for name, (budget, step) in _budgets().items() if budget + step + MARGIN > fns[name]["Timeout"]}
    assert not tight, tight


def test_the_queue_worker_takes_one_delivery_at_a_time_and_is_bounded(template):
    worker = functions(template)["NotificationsWorker"]
    event = next(iter(worker["Events"].values()))["Properties"]
    assert event["BatchSize"] == 1
    assert notify_delivery.DELIVERY_SECONDS + MARGIN <= worker["Timeout"]
    assert event["ScalingConfig"] == {"MaximumConcurrency": 10}
    queue = template["Resources"][event["Queue"]["Fn::GetAtt"][0]]["Properties"]
    assert queue["VisibilityTimeout"] >= 6 * worker["Timeout"]  # AWS's advice for an SQS event source


def test_a_request_waits_for_a_proxy_connection_less_than_its_function_runs(template):
    borrow = template["Resources"]["DatabaseProxyTargetGroup"]["Properties"]["ConnectionPoolConfigurationInfo"][
        "ConnectionBorrowTimeout"]
    shortest = min(p["Timeout"] for p in functions(template).values())
    assert borrow < shortest


def test_mail_may_use_a_configuration_set(template):
    statement = next(s for s in template["Resources"]["FunctionPolicy"]["Properties"]["PolicyDocument"]["Statement"]
                     if s.get("Sid") == "SendMail")
    resources = [r["Fn::Sub"] for r in statement["Resource"]]
    assert any(r.endswith(":identity/*") for r in resources)
    assert any(r.endswith(":configuration-set/*") for r in resources)


def test_no_api_function_outlives_api_gateways_answer(template):
    """API Gateway answers 504 after 29 s; a function still running then commits what its client was told failed
    (and a retry does it again). Each area's API function stops at 29 s at the most (it had 60 s for pages,
    research, invoices and leave)."""
    api = {name: props["Timeout"] for name, props in functions(template).items() if props["Handler"] == "app.app"}
    assert api and max(api.values()) <= 29, {name: t for name, t in api.items() if t > 29}
