"""Interface B, PostgreSQL: indexing costs the import less (docs/archive-search.md, "Speed").

Where an import's indexing went, in the backend's CPU seconds for the corpus's 21,956 emails in
batches of 1,000 (index_emails as the triggers call it, in psql, alternated): 11.9 s in all, 6.7 s
without the GIN indexes, of which computing the tsvectors is nearly everything (the regular
expression of search_words 2.1 s, the parser 1.2 s, its dictionary and the tsvectors 1.6 s).

- The GIN indexes (5.2 s): 0013 bounded their pending lists at 256 kB, so that a search never
  reads much of them; a batch of 1,000 emails then merged its entries into the indexes a few
  dozen emails at a time, one tree descent per word each time. Now a call of `index_emails` for
  BATCH emails or more lets the pending lists take the whole batch (LIMIT, for its statement
  only) and merges them at its end (`gin_clean_pending_list`, every word once): 1.8 s. A search
  finds them as empty as before; the merge is in the statement that stores the mail, which is
  searchable in its transaction as before. A smaller call (Mailman's archive call, a corrected
  row) keeps 0013's 256 kB (the function's setting; the indexes' own is reset so that it
  applies): merging after each email would double its cost (1.5 -> 3 ms of CPU an email).
  `gin_clean_pending_list` asks to own the index, so `index_emails` runs as its owner (SECURITY
  DEFINER), with the search_path of this migration.
- ASCII text (nearly all mail) is cut into words without the regular expression (2.1 s; now
  0.5 s, 1.2 s less in all): the parser of to_tsvector already takes every character that is
  not a letter or a digit for a space, except in the compound tokens it knows (e-mail addresses,
  hosts, URLs, file paths, hyphenated words, signed and decimal numbers, versions, XML tags and
  entities), which all need one of JOINERS. Those become spaces with `replace()` (a byte search),
  and the parser sees the same words at the same positions: the same tsvector for the corpus's
  21,932 ASCII texts and for every pair of ASCII characters in eight contexts (129,032 texts),
  where leaving out any of `. - / < & + ~` gives other tsvectors. `lower()` is not needed before
  it: the `simple` dictionary folds the case of each word the same way. Other text goes through
  search_words as before.

SQLite: nothing.

Revision ID: 0014
Revises: 0013
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# 0013's SQL that this migration builds on or puts back, copied (frozen): what it does stays the
# same whatever becomes of 0013's file.
PREVIOUS_PENDING = "gin_pending_list_limit = 256"
PREVIOUS_SEARCH_FIELD = """CREATE FUNCTION search_field(value text, weight "char") RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('simple', search_words(value)), weight)
    $$"""
_SUBJECT = "search_field(e.subject, 'A')"
_BODY = "search_field(left(e.content, 250000), 'B')"
_SENDER_AND_FILES = (
    "search_field(e.sender_name || ' ' || e.sender_address, 'C') || search_field(coalesce((SELECT "
    "string_agg(a.name, ' ' ORDER BY a.counter) FROM attachments a WHERE a.email_id = e.id), ''), 'D')"
)
PREVIOUS_INDEX_EMAILS = f"""CREATE OR REPLACE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO email_search (email_id, list_id, date, heading, document)
    SELECT e.id, e.list_id, e.date, f.subject || f.others, f.subject || f.body || f.others
    FROM emails e, LATERAL (SELECT {_SUBJECT} AS subject, {_BODY} AS body, {_SENDER_AND_FILES} AS others OFFSET 0) f
    WHERE e.id = ANY(ids)
    ON CONFLICT (email_id) DO UPDATE SET list_id = excluded.list_id, date = excluded.date,
        heading = excluded.heading, document = excluded.document
    $$"""

INDEXES = ("email_search_document", "email_search_heading")
BATCH = 100  # emails: from this many, a call merges the pending lists itself
LIMIT = 65536  # kB, more than a batch's entries (4 MB still merged once in the middle: 0.9 s more)
# The characters the parser builds compound tokens with (above); `@ : _` too, for safety's sake.
JOINERS = ".@-/<&:+_~"
ASCII_WORDS = "value"
for joiner in JOINERS:
    ASCII_WORDS = f"replace({ASCII_WORDS}, '{joiner}', ' ')"
SEARCH_FIELD = rf"""CREATE OR REPLACE FUNCTION search_field(value text, weight "char") RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('simple', CASE WHEN value ~ '^[\x01-\x7f]*$'
        THEN {ASCII_WORDS} ELSE search_words(value) END), weight)
    $$"""
INSERT = PREVIOUS_INDEX_EMAILS.split("$$")[1].strip()
INDEX_EMAILS = f"""CREATE OR REPLACE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path FROM CURRENT SET {PREVIOUS_PENDING} AS $$
    BEGIN
    IF cardinality(ids) >= {BATCH} THEN
        PERFORM set_config('gin_pending_list_limit', '{LIMIT}', true);
    END IF;
    {INSERT};
    IF cardinality(ids) >= {BATCH} THEN
        {" ".join(f"PERFORM gin_clean_pending_list('{index}'::regclass);" for index in INDEXES)}
    END IF;
    END $$"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(SEARCH_FIELD)
    op.execute(INDEX_EMAILS)
    for index in INDEXES:
        op.execute(f"ALTER INDEX {index} RESET (gin_pending_list_limit)")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for index in INDEXES:
        op.execute(f"ALTER INDEX {index} SET ({PREVIOUS_PENDING})")
    op.execute(PREVIOUS_INDEX_EMAILS)
    op.execute(PREVIOUS_SEARCH_FIELD.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
