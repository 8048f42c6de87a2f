"""Interface B: `archive_budgets`, the per-client budgets of the archive's costly doors (searches,
exports; archive/budgets/, docs/archive-crawlers.md "Budgets").

One row per client address and budget, holding when the client's bucket is next full again
(`due`, Unix milliseconds: the generic cell rate algorithm's theoretical arrival time). Every
process of a deployment spends from the same row, in one upsert (store/budgets.py); rows of
clients whose bucket has been full for an hour are dropped as others arrive (`due` indexed).

Revision ID: 0025
Revises: 0024
"""

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archive_budgets",
        sa.Column("client", sa.String(128), primary_key=True),
        sa.Column("due", sa.BigInteger, nullable=False),
    )
    op.create_index("archive_budgets_due", "archive_budgets", ["due"])


def downgrade() -> None:
    op.drop_index("archive_budgets_due", table_name="archive_budgets")
    op.drop_table("archive_budgets")
