"""Performance: review cycles, review templates with KPI items and their assignment to users, reviews with
KPI ratings and goals, feedback requests and responses.

Revision ID: performance_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "performance_0001"
down_revision = "core_0001"
branch_labels = ("performance",)
depends_on = None


def upgrade() -> None:
    op.create_table('review_cycles',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('type', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('period_start', sa.Date(), nullable=False),
    sa.Column('period_end', sa.Date(), nullable=False),
    sa.Column('due_date', sa.Date(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_review_cycles_created_by_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_cycles'))
    )
    op.create_index('ix_review_cycles_status', 'review_cycles', ['status'], unique=False)
    op.create_table('review_templates',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_templates'))
    )
    op.create_table('review_template_items',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('template_id', sa.String(length=36), nullable=False),
    sa.Column('area', sa.String(length=200), nullable=False),
    sa.Column('label', sa.String(length=500), nullable=False),
    sa.Column('is_mandatory', sa.Boolean(), nullable=False),
    sa.Column('sort_order', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['template_id'], ['review_templates.id'], name=op.f('fk_review_template_items_template_id_review_templates'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_template_items'))
    )
    op.create_index(op.f('ix_review_template_items_template_id'), 'review_template_items', ['template_id'], unique=False)
    op.create_table('review_template_assignments',
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('template_id', sa.String(length=36), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['template_id'], ['review_templates.id'], name=op.f('fk_review_template_assignments_template_id_review_templates'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_review_template_assignments_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', name=op.f('pk_review_template_assignments'))
    )
    op.create_index(op.f('ix_review_template_assignments_template_id'), 'review_template_assignments', ['template_id'], unique=False)
    op.create_table('reviews',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('cycle_id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('reviewer_id', sa.String(length=36), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('strengths', sa.Text(), nullable=True),
    sa.Column('growth_areas', sa.Text(), nullable=True),
    sa.Column('discussion_topics', sa.Text(), nullable=True),
    sa.Column('reviewer_notes', sa.Text(), nullable=True),
    sa.Column('action_items', sa.Text(), nullable=True),
    sa.Column('kpi_pass_count', sa.Integer(), nullable=True),
    sa.Column('kpi_total_count', sa.Integer(), nullable=True),
    sa.Column('kpi_passed', sa.Boolean(), nullable=True),
    sa.Column('completed_at', UTCDateTime(), nullable=True),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_reviews_created_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['cycle_id'], ['review_cycles.id'], name=op.f('fk_reviews_cycle_id_review_cycles'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['reviewer_id'], ['users.id'], name=op.f('fk_reviews_reviewer_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_reviews_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reviews')),
    sa.UniqueConstraint('cycle_id', 'user_id', name='uq_reviews_cycle_user')
    )
    op.create_index('ix_reviews_reviewer_status', 'reviews', ['reviewer_id', 'status'], unique=False)
    op.create_index('ix_reviews_user_status', 'reviews', ['user_id', 'status'], unique=False)
    op.create_table('review_kpi_ratings',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('review_id', sa.String(length=36), nullable=False),
    sa.Column('template_item_id', sa.String(length=36), nullable=True),
    sa.Column('area', sa.String(length=200), nullable=False),
    sa.Column('label', sa.String(length=500), nullable=False),
    sa.Column('is_mandatory', sa.Boolean(), nullable=False),
    sa.Column('rating', sa.String(length=30), nullable=True),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('sort_order', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['review_id'], ['reviews.id'], name=op.f('fk_review_kpi_ratings_review_id_reviews'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['template_item_id'], ['review_template_items.id'], name=op.f('fk_review_kpi_ratings_template_item_id_review_template_items'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_kpi_ratings'))
    )
    op.create_index(op.f('ix_review_kpi_ratings_review_id'), 'review_kpi_ratings', ['review_id'], unique=False)
    op.create_table('review_goals',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('review_id', sa.String(length=36), nullable=False),
    sa.Column('goal', sa.Text(), nullable=False),
    sa.Column('success_measures', sa.Text(), nullable=True),
    sa.Column('support_needed', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=True),
    sa.Column('sort_order', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['review_id'], ['reviews.id'], name=op.f('fk_review_goals_review_id_reviews'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_goals'))
    )
    op.create_index(op.f('ix_review_goals_review_id'), 'review_goals', ['review_id'], unique=False)
    op.create_table('feedback_requests',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('cycle_id', sa.String(length=36), nullable=False),
    sa.Column('subject_id', sa.String(length=36), nullable=False),
    sa.Column('reviewer_id', sa.String(length=36), nullable=False),
    sa.Column('requested_by', sa.String(length=36), nullable=True),
    sa.Column('due_date', sa.Date(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('submitted_at', UTCDateTime(), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['cycle_id'], ['review_cycles.id'], name=op.f('fk_feedback_requests_cycle_id_review_cycles'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['requested_by'], ['users.id'], name=op.f('fk_feedback_requests_requested_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['reviewer_id'], ['users.id'], name=op.f('fk_feedback_requests_reviewer_id_users'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['subject_id'], ['users.id'], name=op.f('fk_feedback_requests_subject_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_feedback_requests')),
    sa.UniqueConstraint('cycle_id', 'subject_id', 'reviewer_id', name='uq_feedback_requests_pair')
    )
    op.create_index('ix_feedback_requests_reviewer_status', 'feedback_requests', ['reviewer_id', 'status'], unique=False)
    op.create_index('ix_feedback_requests_subject', 'feedback_requests', ['subject_id'], unique=False)
    op.create_table('feedback_responses',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('request_id', sa.String(length=36), nullable=False),
    sa.Column('organisation_rating', sa.String(length=30), nullable=True),
    sa.Column('performance_rating', sa.String(length=30), nullable=True),
    sa.Column('communication_rating', sa.String(length=30), nullable=True),
    sa.Column('development_rating', sa.String(length=30), nullable=True),
    sa.Column('automation_rating', sa.String(length=30), nullable=True),
    sa.Column('organisation_comment', sa.Text(), nullable=True),
    sa.Column('performance_comment', sa.Text(), nullable=True),
    sa.Column('automation_comment', sa.Text(), nullable=True),
    sa.Column('overall_comment', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['request_id'], ['feedback_requests.id'], name=op.f('fk_feedback_responses_request_id_feedback_requests'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_feedback_responses')),
    sa.UniqueConstraint('request_id', name=op.f('uq_feedback_responses_request_id'))
    )


def downgrade() -> None:
    op.drop_table("feedback_responses")
    op.drop_table("feedback_requests")
    op.drop_table("review_goals")
    op.drop_table("review_kpi_ratings")
    op.drop_table("reviews")
    op.drop_table("review_template_assignments")
    op.drop_table("review_template_items")
    op.drop_table("review_templates")
    op.drop_table("review_cycles")
