"""A client profile's onboarding_template_id references onboarding_templates(id) ON DELETE SET NULL: a profile
can no longer name a template that does not exist (a write naming one is a 400 naming the field). A template a
profile uses is only soft-disabled by its delete, so the SET NULL is a safety, not a path of the API.

Revision ID: onboarding_0002
"""
from chalicelib.migrations.references import add_set_null_reference, drop_reference

revision = "onboarding_0002"
down_revision = "onboarding_0001"
branch_labels = None
depends_on = "clients_0001"


def upgrade() -> None:
    add_set_null_reference("client_profiles", "onboarding_template_id", "onboarding_templates")


def downgrade() -> None:
    drop_reference("client_profiles", "onboarding_template_id", "onboarding_templates")
