"""Interface B: each message's source as received, compressed, and pipermail's message numbers.

`email_sources` holds, for an email, the bytes its import or Mailman's archive call received
(headers and body, without the mbox `From ` line), compressed as `compression` says (`zlib`:
zlib level 6, docs/archive-export.md says why), their uncompressed size, and the mbox `From `
line that carried it, if any. Mail archived before this revision has no row: the export rebuilds
it from the stored fields, and importing the original files again fills the row in. A table of
its own, not a column of `emails`: listing and thread reads never touch these bytes.

`pipermail_numbers` maps the numbers of Mailman 2's pipermail pages (`000123.html`) of a list
to the message that had it; only an import that declares its files the list's complete archive
records them. The index `emails_list_arrival` serves the export's walk of a list in arrival order.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The export walks a list's emails in arrival order, a page at a time: without this index a
    # small list's page scans the emails of every list (the rowid/primary key order).
    op.create_index("emails_list_arrival", "emails", ["list_id", "id"])
    op.create_table(
        "email_sources",
        sa.Column("email_id", sa.Integer, sa.ForeignKey("emails.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("envelope", sa.Text, nullable=True),
        sa.Column("compression", sa.String(8), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "pipermail_numbers",
        sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("message_id_hash", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_index("emails_list_arrival", table_name="emails")
    op.drop_table("pipermail_numbers")
    op.drop_table("email_sources")
