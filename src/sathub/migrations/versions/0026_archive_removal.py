"""Interface B: taking mail out of the archive (archive/removal/, docs/archive-removal.md).

- `archive_removals`, the audit log: one row per hide, unhide or delete that changed something,
  with its scope as the operator gave it (a sender's address only as a SHA-256 for a delete: the
  log must not keep what the delete erased), the reason, who and when, and how many messages.
- `archive_removed`: what each removed message leaves, by list and Message-ID hash (the list by
  its posting address, which outlives a deleted list's row): `hidden` or `deleted` (a tombstone:
  hash, list, date, and the removal that took it). Mailman's archive call and the import look here
  first, so nothing removed is ever archived again.
- `hidden_emails`, `hidden_attachments`, `hidden_email_sources`: a hidden message's rows as they
  were, moved out of `emails`, `attachments` and `email_sources` (so no door, index, count or
  trigger sees them), moved back by unhide; `thread_key` keeps the thread's hash for a thread
  hidden whole. A delete drops them.
- `mailing_lists.hidden_by`: the hide that took a whole list away (NULL: shown). Such a list
  answers 404 at every door; mail Mailman sends it meanwhile is hidden with it.

Revision ID: 0026
Revises: 0025
"""

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archive_removals",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("action", sa.String(8), nullable=False),  # hide, unhide, delete
        sa.Column("scope", sa.Text, nullable=False),  # e.g. "sender x@y list l@z"
        sa.Column("list_name", sa.String(254), nullable=True),  # the one list it touched, if one
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("actor", sa.String(254), nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.Column("messages", sa.Integer, nullable=False),
    )
    op.create_index("archive_removals_list", "archive_removals", ["list_name", "id"])
    op.create_table(
        "archive_removed",
        sa.Column("list_name", sa.String(254), primary_key=True),
        sa.Column("message_id_hash", sa.String(32), primary_key=True),
        sa.Column("state", sa.String(8), nullable=False),  # hidden, deleted
        sa.Column("date", sa.DateTime, nullable=True),
        sa.Column("removal_id", sa.Integer, sa.ForeignKey("archive_removals.id"), nullable=False),
    )
    # No foreign key: SQLite drops no column that one names (downgrade).
    op.add_column("mailing_lists", sa.Column("hidden_by", sa.Integer, nullable=True))
    op.create_table(
        "hidden_emails",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), nullable=False),
        sa.Column("message_id", sa.String(254), nullable=False),
        sa.Column("message_id_hash", sa.String(32), nullable=False),
        sa.Column("sender_id", sa.Integer, sa.ForeignKey("senders.id"), nullable=False),
        sa.Column("sender_address", sa.String(254), nullable=False),
        sa.Column("sender_name", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("sender_comment", sa.Text, nullable=True),
        sa.Column("scrubbed", sa.Text, nullable=True),
        sa.Column("date", sa.DateTime, nullable=False),
        sa.Column("archived_date", sa.DateTime, nullable=False),
        sa.Column("in_reply_to", sa.String(254), nullable=True),
        sa.Column("parent_id", sa.Integer, nullable=True),
        sa.Column("thread_id", sa.Integer, nullable=True),
        sa.Column("thread_order", sa.Integer, nullable=False),
        sa.Column("thread_depth", sa.Integer, nullable=False),
        sa.Column("thread_key", sa.String(32), nullable=True),
        sa.Column("removal_id", sa.Integer, sa.ForeignKey("archive_removals.id"), nullable=False),
        sa.UniqueConstraint("list_id", "message_id_hash", name="hidden_emails_list_hash"),
    )
    op.create_index("hidden_emails_sender", "hidden_emails", ["sender_id"])
    op.create_index("hidden_emails_list_thread", "hidden_emails", ["list_id", "thread_key"])
    op.create_index("hidden_emails_removal", "hidden_emails", ["removal_id"])
    op.create_table(
        "hidden_attachments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column(
            "email_id", sa.Integer, sa.ForeignKey("hidden_emails.id", ondelete="CASCADE"), nullable=False, index=True
        ),
        sa.Column("counter", sa.Integer, nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("content_type", sa.String(255), nullable=False),
        sa.Column("encoding", sa.String(64), nullable=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "hidden_email_sources",
        sa.Column("email_id", sa.Integer, sa.ForeignKey("hidden_emails.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("envelope", sa.Text, nullable=True),
        sa.Column("compression", sa.String(8), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("hidden_email_sources")
    op.drop_table("hidden_attachments")
    op.drop_index("hidden_emails_removal", table_name="hidden_emails")
    op.drop_index("hidden_emails_list_thread", table_name="hidden_emails")
    op.drop_index("hidden_emails_sender", table_name="hidden_emails")
    op.drop_table("hidden_emails")
    op.drop_column("mailing_lists", "hidden_by")
    op.drop_table("archive_removed")
    op.drop_index("archive_removals_list", table_name="archive_removals")
    op.drop_table("archive_removals")
