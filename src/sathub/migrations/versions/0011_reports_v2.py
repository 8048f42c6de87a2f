"""Interface A, /api/v2/reports: an index in the walk's order, (day, hour, period, lower(name),
upper(callsign)), the slot's columns with time first. A page of the walk starts after the last
slot of the page before (status/store/report_walk.py); with this index it is one range of one index
however deep, where reports_time (day, hour, period, id) would sort each quarter-hour's reports
by slot first and reports_slot (name first) could not serve a walk across satellites.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "reports_walk",
        "reports",
        ["day", "hour", "period", sa.text("lower(name)"), sa.text("upper(callsign)")],
    )


def downgrade() -> None:
    op.drop_index("reports_walk", table_name="reports")
