"""Interface B, PostgreSQL: indexing costs the import less (docs/archive-search.md, "Speed").

Where an import's indexing went, in the backend's CPU seconds for the corpus's 21,956 emails in
batches of 1,000 (index_emails as the triggers call it, in psql, alternated): 11.9 s in all, 6.7 s
without the GIN indexes, of which computing the tsvectors is nearly everything (the regular
expression of search_words 2.1 s, the parser 1.2 s, its dictionary and the tsvectors 1.6 s).

- The GIN indexes (5.2 s): 0013 bounded their pending lists at 256 kB, so that a search never
  reads much of them; a batch of 1,000 emails then merged its entries into the indexes a few
  dozen emails at a time, one tree descent per word each time. Now the pending lists take a
  whole batch (PENDING) and `index_emails` merges them at its end (`gin_clean_pending_list`,
  every word once per statement): 1.8 s. A search still finds them empty, as with 0013: the
  merge is in the statement that stores the mail, so it is searchable in that transaction as
  before. `gin_clean_pending_list` asks to own the index, so `index_emails` runs as its owner
  (SECURITY DEFINER), with the search_path of this migration.
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

import importlib

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

previous = importlib.import_module("sathub.migrations.versions.0013_search_speed")

INDEXES = ("email_search_document", "email_search_heading")
# kB: more than one import batch's entries (4 MB still merged once mid-batch: 0.9 s more).
PENDING = "gin_pending_list_limit = 65536"
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
INSERT = previous.INDEX_EMAILS.split("$$")[1].strip()
INDEX_EMAILS = f"""CREATE OR REPLACE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
    {INSERT};
    {"".join(f"PERFORM gin_clean_pending_list('{index}'::regclass); " for index in INDEXES)}
    END $$"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(SEARCH_FIELD)
    op.execute(INDEX_EMAILS)
    for index in INDEXES:
        op.execute(f"ALTER INDEX {index} SET ({PENDING})")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for index in INDEXES:
        op.execute(f"ALTER INDEX {index} SET ({previous.PENDING})")
    op.execute(previous.INDEX_EMAILS)
    op.execute(previous.SEARCH_FIELD.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
