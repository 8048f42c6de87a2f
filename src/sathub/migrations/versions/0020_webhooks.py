"""Webhooks: interface A's events POSTed to an admin's URLs, from the event log (docs/orbits.md,
"Webhooks").

- `webhooks`: one row per registered URL, with its secret and what it subscribes to (`events`:
  'report', 'status' or both, comma-separated; `names`: lower-cased API names, comma-separated,
  empty for every satellite), and its delivery state: `position` (the last event id delivered or
  passed over: it moves only past delivered events), the current run of failures (`failures`,
  `failing_since`, `next_attempt`), whether it is enabled (and why not), and the lease
  (`lease_owner`, `lease_until`) by which one process at a time delivers it.
- `webhook_deliveries`: the last attempts of each hook (time, event, status code or error,
  duration), trimmed as new ones come.

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("secret", sa.String(255), nullable=False),
        sa.Column("events", sa.String(32), nullable=False),
        sa.Column("names", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("disabled_reason", sa.Text, nullable=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("failures", sa.Integer, nullable=False, server_default="0"),
        sa.Column("failing_since", sa.Float(precision=53), nullable=True),
        sa.Column("next_attempt", sa.Float(precision=53), nullable=False, server_default="0"),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", sa.Float(precision=53), nullable=False, server_default="0"),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("webhook_id", sa.Integer, sa.ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("delivery_id", sa.String(36), nullable=False),
        sa.Column("event_id", sa.BigInteger, nullable=False),
        sa.Column("attempted_at", sa.Float(precision=53), nullable=False),
        sa.Column("duration_ms", sa.Float(precision=53), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=True),
        sa.Column("error", sa.String(255), nullable=True),
    )
    op.create_index("webhook_deliveries_by_hook", "webhook_deliveries", ["webhook_id", "id"])


def downgrade() -> None:
    op.drop_index("webhook_deliveries_by_hook", table_name="webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
