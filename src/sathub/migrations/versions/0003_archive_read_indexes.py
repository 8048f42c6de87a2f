"""Interface B read path: the threads of a list newest first, ties by thread id, in index order.

threads_list_active (list_id, date_active, thread_id) serves that order only with a sort of each
group of equal dates (the tie order is ascending while the date order is descending); on a list of
220,000 threads a deep page walked the index with that sort at 4-5x the cost of this index.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("threads_list_recent", "threads", ["list_id", sa.text("date_active DESC"), "thread_id"])


def downgrade() -> None:
    op.drop_index("threads_list_recent", table_name="threads")
