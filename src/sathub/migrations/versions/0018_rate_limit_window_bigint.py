"""Interface A: `rate_limits.window_start` as a 64-bit integer.

A window starts at a Unix time, which passes 2^31 - 1 on 2038-01-19 at 03:14:07 UTC: from then a
32-bit INTEGER refuses every count on PostgreSQL ("integer out of range"), and every POST, form
submission and login would fail. The table holds one row per client of the last hour, so the
rewrite PostgreSQL makes is instant. SQLite's INTEGER already holds 64 bits; its table is rebuilt
only so that the declared type says so, as status/tables.py does.

Revision ID: 0018
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rate_limits") as batch:
        batch.alter_column("window_start", existing_type=sa.Integer, type_=sa.BigInteger, existing_nullable=False)


def downgrade() -> None:
    # Windows after 2038 no longer fit: they are counters of the last hour, dropped, not clipped.
    op.execute(f"DELETE FROM rate_limits WHERE window_start > {2**31 - 1}")
    with op.batch_alter_table("rate_limits") as batch:
        batch.alter_column("window_start", existing_type=sa.BigInteger, type_=sa.Integer, existing_nullable=False)
