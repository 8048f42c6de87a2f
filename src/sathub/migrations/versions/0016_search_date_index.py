"""Interface B, PostgreSQL: the dates of the search index under a B-tree of their own.

A date range with words (`d:2010-01-01..2010-12-31 gps`) read every email the words match and
tested its date: at 1,000,000 messages the 442,662 emails with `gps` for the 51,619 of 2010 (5.5 s
under EXPLAIN ANALYZE with the server's 4 MB of work_mem, 0.4 s over HTTP with 32 MB). With
`email_search_date` the planner ANDs the bitmap of the words' GIN index with that of the range,
and visits only the emails in both: 0.18 s. On the corpus it saves little (794 of 6,721), and an
email stored costs one more B-tree entry, a few microseconds beside its tsvectors.

Sorting by date must not walk it: the statement counts every match (a window count) before its
first row, so a walk newest first tests every email. The planner took that walk for a rare word
(34 ms against 0.6 on the corpus) until the statement sorted by an expression of the date
(store/search_pg.py, `_SAME_TIME`).

SQLite: nothing (its dates are facets of the FTS5 index since 0015).

Revision ID: 0016
Revises: 0015
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.create_index("email_search_date", "email_search", ["date"])


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index("email_search_date", "email_search")
