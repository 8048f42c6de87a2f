"""Interface B: mailing lists, senders, threads, emails, attachments (see sathub/archive/tables.py).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mailing_lists",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(254), nullable=False, unique=True),
        sa.Column("display_name", sa.String(255), nullable=False, server_default=""),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("subject_prefix", sa.String(255), nullable=False, server_default=""),
        sa.Column("archive_policy", sa.String(16), nullable=False, server_default="public"),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )

    op.create_table(
        "senders",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("address", sa.String(254), nullable=False, unique=True),
        sa.Column("mailman_id", sa.String(32), nullable=False, unique=True),
    )

    op.create_table(
        "threads",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), nullable=False),
        sa.Column("thread_id", sa.String(32), nullable=False),
        sa.Column("starting_email_id", sa.Integer, nullable=True),
        sa.Column("subject", sa.Text, nullable=False, server_default=""),
        sa.Column("date_active", sa.DateTime, nullable=False),
        sa.Column("emails_count", sa.Integer, nullable=False, server_default="0"),
        sa.UniqueConstraint("list_id", "thread_id", name="threads_list_thread"),
    )
    # The threads of a list, most recently active first (ties by thread_id).
    op.create_index("threads_list_active", "threads", ["list_id", "date_active", "thread_id"])

    op.create_table(
        "emails",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), nullable=False),
        sa.Column("message_id", sa.String(254), nullable=False),
        sa.Column("message_id_hash", sa.String(32), nullable=False),
        sa.Column("sender_id", sa.Integer, sa.ForeignKey("senders.id"), nullable=False),
        sa.Column("sender_name", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("date", sa.DateTime, nullable=False),
        sa.Column("archived_date", sa.DateTime, nullable=False),
        sa.Column("in_reply_to", sa.String(254), nullable=True),
        sa.Column("parent_id", sa.Integer, nullable=True),
        sa.Column("thread_id", sa.Integer, sa.ForeignKey("threads.id"), nullable=True),
        sa.Column("thread_order", sa.Integer, nullable=False, server_default="0"),
        sa.Column("thread_depth", sa.Integer, nullable=False, server_default="0"),
        sa.UniqueConstraint("list_id", "message_id_hash", name="emails_list_hash"),
    )
    op.create_index("emails_thread_order", "emails", ["thread_id", "thread_order"])
    op.create_index("emails_sender_archived", "emails", ["sender_id", "archived_date", "id"])
    op.create_index("emails_list_archived", "emails", ["list_id", "archived_date", "id"])
    # The importer finds replies waiting for a newly archived parent through this one.
    op.create_index("emails_list_in_reply_to", "emails", ["list_id", "in_reply_to"])
    op.create_index("emails_parent", "emails", ["parent_id"])

    op.create_table(
        "attachments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("email_id", sa.Integer, sa.ForeignKey("emails.id", ondelete="CASCADE"), nullable=False),
        sa.Column("counter", sa.Integer, nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("content_type", sa.String(255), nullable=False),
        sa.Column("encoding", sa.String(64), nullable=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=False),
        sa.UniqueConstraint("email_id", "counter", name="attachments_email_counter"),
    )


def downgrade() -> None:
    for table in ("attachments", "emails", "threads", "senders", "mailing_lists"):
        op.drop_table(table)
