"""Leave: how many times the reversal of a cancelled request was recorded (session 27): the job retries a failed
reversal at most service_integrations.REVERSAL_ATTEMPTS times, and takes a cancellation whose reversal never ran
(0). Cancelled rows already there count one attempt, but those that still hold a ledger, planner or calendar id
with no `Reversal: ...` error: their reversal never ran (its function died before it claimed the request), so the
job reverses them (and posts their chat cancellation). A chat cancellation whose post failed is retried from its
`Reversal: ...` error; one that was posted is not posted again.

Revision ID: leave_0006
"""
import sqlalchemy as sa
from alembic import op

revision = "leave_0006"
down_revision = "leave_0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("leave_requests", sa.Column("reversal_attempts", sa.Integer(), nullable=False,
                                              server_default="0"))
    requests = sa.table("leave_requests", sa.column("status", sa.String()), sa.column("integration_errors", sa.Text()),
                        sa.column("ledger_leave_application_id", sa.String()),
                        sa.column("planner_booking_id", sa.String()), sa.column("calendar_event_id", sa.String()),
                        sa.column("reversal_attempts", sa.Integer()))
    holds = sa.or_(requests.c.ledger_leave_application_id.is_not(None), requests.c.planner_booking_id.is_not(None),
                   requests.c.calendar_event_id.is_not(None))
    recorded = sa.func.coalesce(sa.cast(requests.c.integration_errors, sa.Text()), "").like('%"Reversal:%')
    op.execute(requests.update().where(requests.c.status == "cancelled", sa.or_(sa.not_(holds), recorded))
               .values(reversal_attempts=1))


def downgrade() -> None:
    op.drop_column("leave_requests", "reversal_attempts")
