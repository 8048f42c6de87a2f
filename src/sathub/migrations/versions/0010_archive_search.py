"""Interface B: the search index of every archived email (docs/archive-search.md).

Each email is indexed as four fields: subject, body (its text), sender (name and address) and
files (its attachments' names, in counter order). Database triggers keep the index in the
transaction of every write to `emails` and `attachments` (the import, its correcting re-runs,
Mailman's archiver call, a list deleted), so no writer calls anything and no job runs later.

- SQLite: `email_search`, an FTS5 table with external content (the view `email_search_source`),
  so the text is not stored twice; tokenizer `unicode61 remove_diacritics 2`. An external-content
  index forgets a row only when told the values it indexed, so the triggers that take a row out
  run BEFORE the change, reading the view while it still shows the old values.
- PostgreSQL: `email_search(email_id, document)`, a `tsvector` per email under a GIN index, the
  `simple` configuration (no stemming, no stop words) over `search_words(text)`, which folds
  case and the diacritics of Latin letters exactly as sathub/archive/search/text.py does. Fields
  are weights: A subject, B body, C sender, D files. A body is indexed up to BODY_LIMIT characters
  (a tsvector holds at most 1 MB). Statement triggers with transition tables index an import
  batch in one statement.

Existing emails are indexed here, in batches, with a progress line on stderr for big archives.

Revision ID: 0010
Revises: 0009
"""

import sys

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

BODY_LIMIT = 250_000  # characters of a body PostgreSQL indexes (docs/archive-search.md, Limits)
BATCH = 5_000
TEXT_COLUMNS = "subject, content, sender_name, sender_address"

SQLITE_SOURCE = """CREATE VIEW email_search_source AS
SELECT e.id AS id, e.subject AS subject, e.content AS body,
       e.sender_name || ' ' || e.sender_address AS sender,
       coalesce((SELECT group_concat(a.name, ' ') FROM attachments a WHERE a.email_id = e.id), '') AS files
FROM emails e"""
SQLITE_TABLE = (
    "CREATE VIRTUAL TABLE email_search USING fts5(subject, body, sender, files, "
    "content='email_search_source', content_rowid='id', tokenize='unicode61 remove_diacritics 2')"
)
_ADD = "INSERT INTO email_search(rowid, subject, body, sender, files) SELECT id, subject, body, sender, files"
_FORGET = (
    "INSERT INTO email_search(email_search, rowid, subject, body, sender, files) "
    "SELECT 'delete', id, subject, body, sender, files"
)
SQLITE_ADD = _ADD + " FROM email_search_source WHERE id = {}"
SQLITE_FORGET = _FORGET + " FROM email_search_source WHERE id = {}"
_MOVED = "BEFORE UPDATE OF name, email_id ON attachments"
_ELSEWHERE = " WHEN NEW.email_id IS NOT OLD.email_id"  # an entry is forgotten once, or the index breaks
# (name, timing and event, email id whose entry changes, what is done)
SQLITE_TRIGGERS = [
    ("emails_search_insert", "AFTER INSERT ON emails", "NEW.id", SQLITE_ADD),
    ("emails_search_update_forget", f"BEFORE UPDATE OF {TEXT_COLUMNS} ON emails", "OLD.id", SQLITE_FORGET),
    ("emails_search_update_add", f"AFTER UPDATE OF {TEXT_COLUMNS} ON emails", "NEW.id", SQLITE_ADD),
    ("emails_search_delete", "BEFORE DELETE ON emails", "OLD.id", SQLITE_FORGET),
    ("attachments_search_insert_forget", "BEFORE INSERT ON attachments", "NEW.email_id", SQLITE_FORGET),
    ("attachments_search_insert_add", "AFTER INSERT ON attachments", "NEW.email_id", SQLITE_ADD),
    ("attachments_search_delete_forget", "BEFORE DELETE ON attachments", "OLD.email_id", SQLITE_FORGET),
    ("attachments_search_delete_add", "AFTER DELETE ON attachments", "OLD.email_id", SQLITE_ADD),
    ("attachments_search_update_forget", _MOVED, "OLD.email_id", SQLITE_FORGET),
    ("attachments_search_update_add", _MOVED.replace("BEFORE", "AFTER"), "OLD.email_id", SQLITE_ADD),
    ("attachments_search_move_forget", _MOVED + _ELSEWHERE, "NEW.email_id", SQLITE_FORGET),
    ("attachments_search_move_add", _MOVED.replace("BEFORE", "AFTER") + _ELSEWHERE, "NEW.email_id", SQLITE_ADD),
]

POSTGRESQL_FUNCTIONS = [
    # The words of a text as text.py finds them: NFD, the marks of Latin letters dropped, NFC,
    # lower case, every run of non-alphanumerics one space (so the parser sees plain words).
    # ASCII text (nearly all mail) skips the Unicode steps, which change nothing in it: the
    # corpus indexes in a third of the time.
    r"""CREATE FUNCTION search_words(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN value ~ '^[\x01-\x7f]*$' THEN regexp_replace(lower(value), '[^[:alnum:]]+', ' ', 'g')
    ELSE regexp_replace(lower(normalize(regexp_replace(normalize(value, NFD),
        '([\u0001-\u024f\u1e00-\u1eff])[\u0300-\u036f]+', '\1', 'g'), NFC)), '[^[:alnum:]]+', ' ', 'g') END
    $$""",
    f"""CREATE FUNCTION search_document(subject text, body text, sender text, files text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('simple', search_words(subject)), 'A')
        || setweight(to_tsvector('simple', search_words(left(body, {BODY_LIMIT}))), 'B')
        || setweight(to_tsvector('simple', search_words(sender)), 'C')
        || setweight(to_tsvector('simple', search_words(files)), 'D')
    $$""",
    # The index entries of the emails `ids`, as they are now (an email gone has none).
    """CREATE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO email_search (email_id, document)
    SELECT e.id, search_document(e.subject, e.content, e.sender_name || ' ' || e.sender_address,
        coalesce((SELECT string_agg(a.name, ' ' ORDER BY a.counter) FROM attachments a WHERE a.email_id = e.id), ''))
    FROM emails e WHERE e.id = ANY(ids)
    ON CONFLICT (email_id) DO UPDATE SET document = excluded.document
    $$""",
    """CREATE FUNCTION emails_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY(SELECT id FROM new_rows)); RETURN NULL; END $$""",
    """CREATE FUNCTION emails_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY[NEW.id]); RETURN NULL; END $$""",
    """CREATE FUNCTION attachments_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY(SELECT DISTINCT email_id FROM new_rows)); RETURN NULL; END $$""",
    """CREATE FUNCTION attachments_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY(SELECT DISTINCT email_id FROM old_rows)); RETURN NULL; END $$""",
    """CREATE FUNCTION attachments_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY[OLD.email_id, NEW.email_id]); RETURN NULL; END $$""",
]
POSTGRESQL_TRIGGERS = [
    "CREATE TRIGGER emails_search_insert AFTER INSERT ON emails REFERENCING NEW TABLE AS new_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION emails_search_inserted()",
    f"CREATE TRIGGER emails_search_update AFTER UPDATE OF {TEXT_COLUMNS} ON emails FOR EACH ROW "
    "WHEN (OLD.subject IS DISTINCT FROM NEW.subject OR OLD.content IS DISTINCT FROM NEW.content "
    "OR OLD.sender_name IS DISTINCT FROM NEW.sender_name OR OLD.sender_address IS DISTINCT FROM NEW.sender_address) "
    "EXECUTE FUNCTION emails_search_updated()",
    "CREATE TRIGGER attachments_search_insert AFTER INSERT ON attachments REFERENCING NEW TABLE AS new_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION attachments_search_inserted()",
    "CREATE TRIGGER attachments_search_delete AFTER DELETE ON attachments REFERENCING OLD TABLE AS old_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION attachments_search_deleted()",
    "CREATE TRIGGER attachments_search_update AFTER UPDATE OF name, email_id ON attachments FOR EACH ROW "
    "EXECUTE FUNCTION attachments_search_updated()",
]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.create_table(
            "email_search",
            sa.Column("email_id", sa.Integer, sa.ForeignKey("emails.id", ondelete="CASCADE"), primary_key=True),
            sa.Column("document", postgresql.TSVECTOR, nullable=False),
        )
        for statement in POSTGRESQL_FUNCTIONS + POSTGRESQL_TRIGGERS:
            op.execute(statement)
        _fill("SELECT index_emails(ARRAY(SELECT id FROM emails WHERE id > {0} AND id <= {1}))")
        # Built after the fill: one sorted GIN build is much faster than 22,000 insertions.
        op.execute("CREATE INDEX email_search_document ON email_search USING gin (document)")
        op.execute("ANALYZE email_search")
    else:
        op.execute(SQLITE_SOURCE)
        op.execute(SQLITE_TABLE)
        for name, event, email_id, action in SQLITE_TRIGGERS:
            op.execute(f"CREATE TRIGGER {name} {event} BEGIN {action.format(email_id)}; END")
        _fill(_ADD + " FROM email_search_source WHERE id > {0} AND id <= {1}")


def _fill(statement: str, doing: str = "migration 0010: indexing emails for search") -> None:
    """Index the emails already stored, BATCH ids at a time, saying how far it is when it is long
    (`doing`, the progress line's words)."""
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
    if op.get_bind().dialect.name == "postgresql":
        op.drop_table("email_search")
        for name, table in (
            ("emails_search_insert", "emails"),
            ("emails_search_update", "emails"),
            ("attachments_search_insert", "attachments"),
            ("attachments_search_delete", "attachments"),
            ("attachments_search_update", "attachments"),
        ):
            op.execute(f"DROP TRIGGER {name} ON {table}")
        for function in (
            "emails_search_inserted()",
            "emails_search_updated()",
            "attachments_search_inserted()",
            "attachments_search_deleted()",
            "attachments_search_updated()",
            "index_emails(integer[])",
            "search_document(text, text, text, text)",
            "search_words(text)",
        ):
            op.execute(f"DROP FUNCTION {function}")
    else:
        for name, *_ in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER {name}")
        op.execute("DROP TABLE email_search")
        op.execute("DROP VIEW email_search_source")
