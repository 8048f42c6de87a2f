"""Interface B, PostgreSQL: each email's id and date in the search's GIN indexes beside its words,
so that a search reads its matches in its order a span of ids or dates at a time
(store/search_pg.py's span_matches; docs/archive-search.md, "Counts").

- By relevance a search ranks its 1,000 newest matches and counts up to 10,000; by date it pages
  through the newest (or oldest) dates: it asks for the matches above an id (past a date),
  widening the span until it holds enough. With the ids and dates in the index (btree_gin's
  operator classes for integers and timestamps), the GIN scan intersects the words with the span and
  the span's matches alone are visited: `gps time` over the last 20,000 ids of 1,000,000 messages
  4.2 ms instead of 854 ms. The planner cannot be trusted to AND the GIN index with the primary
  key's B-tree itself: ANALYZE skips every tsvector wider than 1 kB (ts_typanalyze), which is most
  of `document`, so it guesses 0.5 % of the rows for any word and 0.0025 % for two, and then
  filters the words' every match by id instead (the measurement above).
- The date as an expression (`date + INTERVAL '0 s'`, which search_pg.py writes to order by date):
  a span past a date is one bound near the end of the dates, a few entries of the index; a date
  range (`d:2010-01-01..2010-12-31`) would be two bounds, each scanning the entries to an end of
  the dates (`d:` and `gps` 195 ms instead of 61 at 1,000,000 messages), so it keeps the dates'
  B-tree (migration 0016), which the raw column's condition is answered from.
- The indexes keep their names: index_emails() (migration 0023) merges their pending lists by
  name. Built again here, which takes about a minute per million messages.
- `CREATE EXTENSION btree_gin`: a trusted extension (PostgreSQL 13 and later), which the owner of
  the database may create; it ships with PostgreSQL's contrib modules, as on Debian.

Revision ID: 0031
Revises: 0030
"""

from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None

INDEXES = (("email_search_document", "document"), ("email_search_heading", "heading"))


def _build(with_ids: bool) -> None:
    op.execute("SET LOCAL maintenance_work_mem = '256MB'")
    for name, column in INDEXES:
        columns = f"{column}, email_id, (date + INTERVAL '0 s')" if with_ids else column
        op.execute(f"DROP INDEX {name}")
        op.execute(f"CREATE INDEX {name} ON email_search USING gin ({columns})")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    _build(with_ids=True)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _build(with_ids=False)  # btree_gin stays: other objects may use it
