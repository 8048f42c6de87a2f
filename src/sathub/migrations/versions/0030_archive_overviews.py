"""Interface B: each email's NNTP overview line, kept (archive/nntp/, docs/archive-nntp.md "Speed").

- `emails.overview` (and `hidden_emails.overview`, moved with its row by a hide and an unhide as
  every column is) holds OVER's first seven fields (Subject, From, Date, Message-ID, References,
  :bytes, :lines; nntp/overview.py) joined by TABs: what the article number and the Xref, which
  depend on the site's settings, are put around when served. Made once by the writers, from the
  parse they already do: :lines needs the message's body, which OVER would otherwise read from
  every source.
- Why kept, not made at each OVER: made from the row's fields, the References' rows and the
  source's size, `OVER 1-10000` spent 45–54 ms in its statement and 27 ms formatting on either
  backend; reading the kept lines takes 4.7 ms on SQLite and 11.7 ms on PostgreSQL. public-inbox
  keeps such a table too (over.sqlite3).
- SQLite: an index on (list_id, article_number, overview) answers OVER from the index alone (the
  row's overview column comes after its content, whose overflow pages a row read walks). Not on
  PostgreSQL, where a B-tree entry is limited to a third of a page and a line of many References
  is longer; its heap rows are read in arrival order there.
- NULL until written: this migration holds schema alone (frozen: it parses no mail) and stays
  quick on a large archive. The mail stored before it gets its lines from `sathub archive reindex
  --sources`, as migration 0029's references did; until then OVER makes them from the fields, with
  :lines empty.

Revision ID: 0030
Revises: 0029
"""

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None

KEPT = ("emails", "hidden_emails")


def upgrade() -> None:
    for table in KEPT:
        op.add_column(table, sa.Column("overview", sa.Text, nullable=True))
    if op.get_bind().dialect.name == "sqlite":
        op.create_index("emails_list_article_overview", "emails", ["list_id", "article_number", "overview"])


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.drop_index("emails_list_article_overview", "emails")
    for table in KEPT:
        if op.get_bind().dialect.name == "sqlite":  # in place (3.35): the tables have triggers to keep
            op.execute(f"ALTER TABLE {table} DROP COLUMN overview")
        else:
            op.drop_column(table, "overview")
