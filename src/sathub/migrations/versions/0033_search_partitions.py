"""Interface B, PostgreSQL: the search index in partitions of 100,000 email ids, so that a search
that needs the newest matches of a word asks the newest partitions first and stops when it has
enough (store/search_pg.py's span_matches; docs/archive-search.md, "Counts").

- Before, a match that the first span of ids held too few of was read whole: every match of the
  word, its rows visited (`f:esr@thyrsus.com` 219 ms at 1,000,000 messages, `satel*` 180,
  `ntp OR chrony` 114). A partition has a GIN index of its own, whose posting lists hold its
  100,000 emails' entries alone: asked a partition at a time newest first, the same matches cost
  13-22 ms (measured on a copy of the million, docs/archive-search.md).
- The GIN indexes hold `email_id + 0`, not the id, beside the words and the date expression: a
  search asks a partition by its id range (`email_id >= lo AND email_id < hi`), which the planner
  prunes the other partitions with, and the raw column's condition would also become a range
  scan of the GIN index (100,000 ids about 10 ms) for rows the partition holds anyway. The spans
  within the newest partition (a dense word's) ask the expression, as they asked the id.
- The partitions are `email_search_<first id>`; `email_search_beyond` (the default partition)
  takes what comes beyond the last, so that storing mail never waits for a partition to be
  made. The writers make the next partition ahead of the ids, in a transaction of their own, and
  carve out of `email_search_beyond` what reached it (store/search_partitions.py): a search reads
  `email_search_beyond` as any partition, so mail there is found, only slower.
- The tsvectors keep no statistics (0013), in each partition as in the table.
- `index_emails` merges the pending lists of every partition's indexes after a large call (the
  partitioned indexes have no pending list of their own).
- The rows are copied in id order and the indexes built after: about two minutes per million
  messages.

SQLite: nothing.

Revision ID: 0033
Revises: 0032
"""

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

SPAN = 100_000  # email ids a partition
COLUMNS = "email_id, list_id, date, heading, document"
TABLE = (
    "CREATE TABLE email_search (email_id integer NOT NULL, list_id integer NOT NULL, "
    "date timestamp without time zone NOT NULL, heading tsvector NOT NULL, document tsvector NOT NULL)"
)
NO_STATISTICS = "ALTER COLUMN heading SET STATISTICS 0, ALTER COLUMN document SET STATISTICS 0"
KEYS = (
    "ALTER TABLE email_search ADD CONSTRAINT email_search_pkey PRIMARY KEY (email_id), "
    "ADD CONSTRAINT email_search_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails (id) ON DELETE CASCADE"
)
GIN = (("email_search_document", "document"), ("email_search_heading", "heading"))
OLD_ID, NEW_ID = "email_id", "(email_id + 0)"
OLD_NAMES = ("email_search_pkey", "email_search_document", "email_search_heading", "email_search_date")

# 0023's index_emails (copied, frozen: its merge of the pending lists named the indexes), and the
# same merging every partition's.
_OLD_MERGE = """        PERFORM gin_clean_pending_list('email_search_document'::regclass);
        PERFORM gin_clean_pending_list('email_search_heading'::regclass);"""
_LEAVES = "FROM pg_partition_tree('{}') t WHERE t.isleaf"
_NEW_MERGE = f"""        PERFORM gin_clean_pending_list(t.relid) {_LEAVES.format("email_search_document")};
        PERFORM gin_clean_pending_list(t.relid) {_LEAVES.format("email_search_heading")};"""
OLD_INDEX_EMAILS = f"""CREATE OR REPLACE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path FROM CURRENT SET gin_pending_list_limit = 256 AS $$
    BEGIN
    IF cardinality(ids) >= 100 THEN
        PERFORM set_config('gin_pending_list_limit', '65536', true);
    END IF;
    INSERT INTO email_search (email_id, list_id, date, heading, document)
    SELECT e.id, e.list_id, e.date, f.subject || f.others, f.subject || f.body || f.others
    FROM emails e, LATERAL (SELECT search_field(e.subject, 'A') AS subject,
        search_field(left(e.content || E'\\n' || coalesce(e.scrubbed, ''), 250000), 'B') AS body,
        search_field(e.sender_name || ' ' || e.sender_address || ' ' || coalesce(e.sender_comment, ''), 'C')
        || search_field(coalesce((SELECT string_agg(a.name, ' ' ORDER BY a.counter)
        FROM attachments a WHERE a.email_id = e.id), ''), 'D') AS others OFFSET 0) f
    WHERE e.id = ANY(ids)
    ON CONFLICT (email_id) DO UPDATE SET list_id = excluded.list_id, date = excluded.date,
        heading = excluded.heading, document = excluded.document;
    IF cardinality(ids) >= 100 THEN
{_OLD_MERGE}
    END IF;
    END $$"""
INDEX_EMAILS = OLD_INDEX_EMAILS.replace(_OLD_MERGE, _NEW_MERGE)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    top = op.get_bind().execute(sa.text("SELECT coalesce(max(email_id), 0) FROM email_search")).scalar_one()
    _set_aside()
    op.execute(TABLE + " PARTITION BY RANGE (email_id)")
    op.execute(f"ALTER TABLE email_search {NO_STATISTICS}")
    # Up to the partition after the last id's, as the writers keep it (search_partitions.py).
    for first in range(0, (top // SPAN + 2) * SPAN, SPAN):
        op.execute(
            f"CREATE TABLE email_search_{first} PARTITION OF email_search FOR VALUES FROM ({first}) TO ({first + SPAN})"
        )
        op.execute(f"ALTER TABLE email_search_{first} {NO_STATISTICS}")
    op.execute("CREATE TABLE email_search_beyond PARTITION OF email_search DEFAULT")
    op.execute(f"ALTER TABLE email_search_beyond {NO_STATISTICS}")
    _copy_and_index(NEW_ID)
    op.execute(INDEX_EMAILS)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _set_aside()
    op.execute(TABLE)
    op.execute(f"ALTER TABLE email_search {NO_STATISTICS}")
    _copy_and_index(OLD_ID)
    op.execute(OLD_INDEX_EMAILS)


def _set_aside() -> None:
    """The index as it is renamed `email_search_old`, and its keys and indexes, whose names the
    new table takes."""
    op.execute("ALTER TABLE email_search RENAME TO email_search_old")
    op.execute("ALTER TABLE email_search_old RENAME CONSTRAINT email_search_email_id_fkey TO email_search_old_fkey")
    for name in OLD_NAMES:
        op.execute(f"ALTER INDEX {name} RENAME TO {name.replace('email_search', 'email_search_old')}")


def _copy_and_index(email_id: str) -> None:
    """The rows of `email_search_old` copied into `email_search` in id order, that dropped, then the
    keys and indexes built (the GIN indexes with `email_id` as the id column)."""
    op.execute("SET LOCAL maintenance_work_mem = '256MB'")
    op.execute(f"INSERT INTO email_search ({COLUMNS}) SELECT {COLUMNS} FROM email_search_old ORDER BY email_id")
    op.execute("DROP TABLE email_search_old")
    op.execute(KEYS)
    for name, column in GIN:
        op.execute(f"CREATE INDEX {name} ON email_search USING gin ({column}, {email_id}, (date + INTERVAL '0 s'))")
    op.execute("CREATE INDEX email_search_date ON email_search (date)")
    op.execute("ANALYZE email_search")
