"""Interface B: each email's References, for public-inbox's thread rule and NNTP OVER's References
(docs/public-inbox.md, "Two thread rules").

- `email_references` holds the Message-IDs an email names in its References and In-Reply-To
  headers, in public-inbox's order (PublicInbox::MID's `references()`): the thread public-inbox
  answers joins every message naming a Message-ID, and messages never received (ghosts), which
  the one parent of `emails.in_reply_to` does not. A table, not a column: the thread is found by
  asking which emails of a list name a Message-ID (the index `(list_id, message_id)`); a text
  column would need the list scanned with LIKE at each step.
- `hidden_email_references` is its mirror for hidden mail (archive/removal/), as
  hidden_email_sources is: a hide moves the rows there, an unhide back, a delete erases them.
- `emails.references_read` (and hidden_emails'): NULL until the email's rows are written. This
  migration holds schema alone (frozen: it parses no mail) and stays quick on a large archive;
  the mail stored before it is read from its kept source by `sathub archive reindex --sources`,
  as migration 0023's columns were, and until then is threaded by its in_reply_to alone. The
  writers set it on new mail.

Revision ID: 0029
Revises: 0028
"""

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

MARKED = ("emails", "hidden_emails")


def _columns(owner: str) -> list:
    return [
        sa.Column("email_id", sa.Integer, sa.ForeignKey(f"{owner}.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("list_id", sa.Integer, nullable=False),
        sa.Column("message_id", sa.String(254), nullable=False),
    ]


def upgrade() -> None:
    op.create_table("email_references", *_columns("emails"))
    op.create_index("email_references_list_message_id", "email_references", ["list_id", "message_id"])
    op.create_table("hidden_email_references", *_columns("hidden_emails"))
    for table in MARKED:
        op.add_column(table, sa.Column("references_read", sa.Boolean, nullable=True))


def downgrade() -> None:
    for table in MARKED:
        if op.get_bind().dialect.name == "sqlite":  # in place (3.35): the tables have triggers to keep
            op.execute(f"ALTER TABLE {table} DROP COLUMN references_read")
        else:
            op.drop_column(table, "references_read")
    op.drop_table("hidden_email_references")
    op.drop_index("email_references_list_message_id", "email_references")
    op.drop_table("email_references")
