"""Budget line amounts in cents (money audit): an amount is quantity x unit_price rounded half up to the cent
(budgets service `line_amount`); the amounts stored before kept up to four places (0.33 x 33.33 = 10.9989), so the
lines, the spent amount and what an invoice of them bills disagreed. Rounds the stored ones; the columns stay.
A budget whose total was its lines' sum rounded once gets the sum of the rounded lines first (the downgrade
leaves the totals).
Invoice lines are left as they were issued (docs/decisions/invoices.md).

Revision ID: budgets_0003
"""
from alembic import op

revision = "budgets_0003"
down_revision = "budgets_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A budget's total the code before made from its lines (a proposal's accepted budget: the unrounded lines' sum,
    # rounded once) becomes the sum of the rounded lines, else it ends below them (149.99 against 150.00) and the
    # budget cannot be invoiced from its own lines; a total set apart from the lines is left (session 27).
    op.execute("UPDATE budgets SET total_amount = (SELECT ROUND(SUM(ROUND(l.quantity * l.unit_price, 2)), 2) "
               "FROM budget_line_items l WHERE l.budget_id = budgets.id) "
               "WHERE total_amount = (SELECT ROUND(SUM(l.amount), 2) FROM budget_line_items l "
               "WHERE l.budget_id = budgets.id)")
    # ROUND(numeric, 2) rounds half away from zero on Postgres, as Decimal's ROUND_HALF_UP; SQLite's ROUND does too
    op.execute("UPDATE budget_line_items SET amount = ROUND(quantity * unit_price, 2) "
               "WHERE amount <> ROUND(quantity * unit_price, 2)")


def downgrade() -> None:
    op.execute("UPDATE budget_line_items SET amount = quantity * unit_price")
