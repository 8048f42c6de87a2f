"""Interface B, PostgreSQL: the search index carries each email's list and date, so that a search
never looks a match up in `emails`, and a small tsvector of the short fields, so that `s:`, `f:`
and `n:` do not read whole texts (docs/archive-search.md, "Speed").

`email_search(email_id, list_id, date, heading, document)`: a search reads its matches, leaves
private lists out, ranges and sorts by date from the index alone, and joins `emails` for the
page's ten rows only. Before, checking that a match's list is public fetched each match's
`emails` row: 38 of the 74 ms of a search for `gpsd` (15,091 matches).

`heading` is the subject, sender and file names with their weights (A, C, D), as `document`
has them, under a GIN index of its own (1 MB for the corpus beside `document`'s 15 MB). The GIN
index does not store weights, so every email it finds for a fielded word is checked again
against its tsvector: `f:esr@thyrsus.com` checked 4,742 whole documents (27 ms), and checks
4,742 headings (3 ms). `document` still holds every field: words without a field, and ranking.

The table is made again rather than altered: an UPDATE of every row would leave the heap twice
its size (a dead copy of each tuple until a vacuum, which a migration's transaction cannot run),
and a search reads the heap pages of every match. Rows are copied in email order, the documents
as they are (not computed again), then the keys and the GIN indexes are built.

The tsvectors keep no statistics: with them, the planner sees that a common word matches most
emails and scans the whole table, testing `@@` against every tsvector (64 ms for `gpsd`), because
it costs `@@` as one cheap operator; without them it takes the default selectivity of a text
match (0.5 %) and always reads the GIN index (3 ms for the same count).

`index_emails` writes the new columns too, computing each field once for both tsvectors
(`search_field`), and the row trigger on `emails` fires when an email's list or date changes as well
as its text, in the same transaction as before.

SQLite: nothing (its search reads FTS5 and `emails`).

Revision ID: 0013
Revises: 0012
"""

import sys

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

# 0010's SQL that this migration reads or puts back, copied (frozen): what it does stays the same
# whatever becomes of 0010's file.
BODY_LIMIT = 250_000  # characters of a body indexed, as 0010's search_document has it
BATCH = 5_000  # emails copied a statement
TEXT_COLUMNS = "subject, content, sender_name, sender_address"
OLD_INDEX_EMAILS = """CREATE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO email_search (email_id, document)
    SELECT e.id, search_document(e.subject, e.content, e.sender_name || ' ' || e.sender_address,
        coalesce((SELECT string_agg(a.name, ' ' ORDER BY a.counter) FROM attachments a WHERE a.email_id = e.id), ''))
    FROM emails e WHERE e.id = ANY(ids)
    ON CONFLICT (email_id) DO UPDATE SET document = excluded.document
    $$"""
OLD_UPDATED = (
    f"CREATE TRIGGER emails_search_update AFTER UPDATE OF {TEXT_COLUMNS} ON emails FOR EACH ROW "
    "WHEN (OLD.subject IS DISTINCT FROM NEW.subject OR OLD.content IS DISTINCT FROM NEW.content "
    "OR OLD.sender_name IS DISTINCT FROM NEW.sender_name OR OLD.sender_address IS DISTINCT FROM NEW.sender_address) "
    "EXECUTE FUNCTION emails_search_updated()"
)

# One field of an email as 0010's search_document makes it: its words, with the field's weight.
SEARCH_FIELD = """CREATE FUNCTION search_field(value text, weight "char") RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('simple', search_words(value)), weight)
    $$"""
SUBJECT = "search_field(e.subject, 'A')"
BODY = f"search_field(left(e.content, {BODY_LIMIT}), 'B')"
SENDER_AND_FILES = (
    "search_field(e.sender_name || ' ' || e.sender_address, 'C') || search_field(coalesce((SELECT "
    "string_agg(a.name, ' ' ORDER BY a.counter) FROM attachments a WHERE a.email_id = e.id), ''), 'D')"
)
# `document` is 0010's search_document(subject, body, sender, files) (the same tsvector, checked on
# the corpus), made of the fields `heading` is made of, computed once (`OFFSET 0`: the subquery is
# not merged into the outer one, which would compute each field once per use).
INDEX_EMAILS = f"""CREATE OR REPLACE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO email_search (email_id, list_id, date, heading, document)
    SELECT e.id, e.list_id, e.date, f.subject || f.others, f.subject || f.body || f.others
    FROM emails e, LATERAL (SELECT {SUBJECT} AS subject, {BODY} AS body, {SENDER_AND_FILES} AS others OFFSET 0) f
    WHERE e.id = ANY(ids)
    ON CONFLICT (email_id) DO UPDATE SET list_id = excluded.list_id, date = excluded.date,
        heading = excluded.heading, document = excluded.document
    $$"""
UPDATED = (
    f"CREATE TRIGGER emails_search_update AFTER UPDATE OF {TEXT_COLUMNS}, list_id, date ON emails "
    "FOR EACH ROW WHEN (OLD.subject IS DISTINCT FROM NEW.subject OR OLD.content IS DISTINCT FROM NEW.content "
    "OR OLD.sender_name IS DISTINCT FROM NEW.sender_name OR OLD.sender_address IS DISTINCT FROM NEW.sender_address "
    "OR OLD.list_id IS DISTINCT FROM NEW.list_id OR OLD.date IS DISTINCT FROM NEW.date) "
    "EXECUTE FUNCTION emails_search_updated()"
)
# New entries wait in a GIN index's pending list, which every search reads through, until it is
# merged into the index: by a vacuum (the corpus's server runs no autovacuum) or when it outgrows
# this limit (4 MB by default: 0.7 ms of a rare word's 2 ms in the server, 246 pages after the
# corpus's import). 256 kB bounds that read; the import ran as fast (within 3 %), and the indexes
# came out 15.5 MB instead of 23.4 MB (heading's 1.1 MB instead of 5.2 MB).
PENDING = "gin_pending_list_limit = 256"
# The documents as they are (not computed again); the headings computed.
COPY = (
    "INSERT INTO email_search (email_id, list_id, date, heading, document) "
    f"SELECT s.email_id, e.list_id, e.date, {SUBJECT} || {SENDER_AND_FILES}, s.document "
    "FROM email_search_0010 s JOIN emails e ON e.id = s.email_id "
    "WHERE s.email_id > {0} AND s.email_id <= {1} ORDER BY s.email_id"
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE email_search RENAME TO email_search_0010")
    op.execute(
        "CREATE TABLE email_search (email_id integer NOT NULL, list_id integer NOT NULL, "
        "date timestamp without time zone NOT NULL, heading tsvector NOT NULL, document tsvector NOT NULL)"
    )
    op.execute("ALTER TABLE email_search ALTER COLUMN heading SET STATISTICS 0, ALTER COLUMN document SET STATISTICS 0")
    op.execute(SEARCH_FIELD)
    op.execute(INDEX_EMAILS)
    op.execute("DROP TRIGGER emails_search_update ON emails")
    op.execute(UPDATED)
    _fill(COPY, "migration 0013: copying the search index with lists and dates")
    op.execute("DROP TABLE email_search_0010")  # and its key, foreign key and index, whose names return
    op.execute(
        "ALTER TABLE email_search ADD CONSTRAINT email_search_pkey PRIMARY KEY (email_id), "
        "ADD CONSTRAINT email_search_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails (id) ON DELETE CASCADE"
    )
    for name, column in (("email_search_document", "document"), ("email_search_heading", "heading")):
        op.execute(f"CREATE INDEX {name} ON email_search USING gin ({column}) WITH ({PENDING})")
    op.execute("ANALYZE email_search")


def _fill(statement: str, doing: str) -> None:
    """Run `statement` over the emails' ids, BATCH at a time, saying how far it is when it is long
    (`doing`, the progress line's words): 0010's _fill, copied."""
    conn = op.get_bind()
    last = conn.execute(sa.text("SELECT max(id) FROM emails")).scalar() or 0
    shown = last > 10 * BATCH
    for first in range(0, last, BATCH):
        conn.execute(sa.text(statement.format(first, first + BATCH)))
        if shown:
            done = min(first + BATCH, last)
            sys.stderr.write(f"\r{doing}: {done * 100 // last:3d} % ({done}/{last})")
            sys.stderr.flush()
    if shown:
        sys.stderr.write("\n")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER emails_search_update ON emails")
    op.execute(OLD_UPDATED)
    op.execute("ALTER TABLE email_search DROP COLUMN list_id, DROP COLUMN date, DROP COLUMN heading")
    op.execute("ALTER TABLE email_search ALTER COLUMN document SET STATISTICS -1")
    op.execute(OLD_INDEX_EMAILS.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
    op.execute('DROP FUNCTION search_field(text, "char")')
