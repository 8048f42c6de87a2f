"""Interface B: the emails' Message-IDs under an index of their own.

`m:<Message-ID>` without `mlist` looked the Message-ID up with no index covering it alone
(`emails_list_hash` leads with the list): on SQLite every email was read, 30–85 ms on the corpus;
with `mlist` or on PostgreSQL (which reads `email_search` first) about 10 ms. The index makes the
lookup a B-tree descent on both backends (figures in docs/archive-search.md, "Speed").

Revision ID: 0022
Revises: 0021
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("emails_message_id", "emails", ["message_id"])


def downgrade() -> None:
    op.drop_index("emails_message_id", "emails")
