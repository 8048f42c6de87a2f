"""Interface B, SQLite: facets in the search index, an email's list and date as words of a fifth
FTS5 column (sathub/archive/search/facets.py says which words and why).

A search with `mlist=`, `l:` or `d:`, and any search while a list is private, joined each of its
word matches to its `emails` row to read the list and the date: 0.4 µs a match when the page is
in memory, more than the match itself (`d:2010 gps`: 10 ms of the corpus's 15; at 1,000,000
messages seconds). With facets FTS5 answers those alone, counts included.

The view the index reads gains `facets`, built from the stored `list_id` and `date` (its text,
`YYYY-MM-DD hh:mm:ss…`, UTC); the index is made again with the column and filled in batches with a
progress line (at 1,000,000 messages this is the length of a first indexing). The triggers are
0010's, and the update of an email now also re-indexes it when its list or date changes.

The index `emails_date (date, id)` lets a search sorted by date walk the emails newest (or
oldest) first when its words match many, instead of sorting all of them (`gpsd`, 15,091 emails:
3.7 against 11.5 ms of CPU under load). It is made on PostgreSQL too, where it serves nothing yet
but keeps one schema (sathub/archive/tables.py); nothing else of this migration touches
PostgreSQL, whose index carries the list and the date as columns since 0013.

Revision ID: 0015
Revises: 0014
"""

import sys

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

# 0010's SQLite index (the view, the table and the triggers), which this migration makes again
# with facets and its downgrade puts back, copied (frozen): what it does stays the same whatever
# becomes of 0010's file.
BATCH = 5_000  # emails indexed a statement
TEXT_COLUMNS = "subject, content, sender_name, sender_address"
OLD_SOURCE = """CREATE VIEW email_search_source AS
SELECT e.id AS id, e.subject AS subject, e.content AS body,
       e.sender_name || ' ' || e.sender_address AS sender,
       coalesce((SELECT group_concat(a.name, ' ') FROM attachments a WHERE a.email_id = e.id), '') AS files
FROM emails e"""
OLD_TABLE = (
    "CREATE VIRTUAL TABLE email_search USING fts5(subject, body, sender, files, "
    "content='email_search_source', content_rowid='id', tokenize='unicode61 remove_diacritics 2')"
)
OLD_ADD = "INSERT INTO email_search(rowid, subject, body, sender, files) SELECT id, subject, body, sender, files"
_OLD_FORGET = (
    "INSERT INTO email_search(email_search, rowid, subject, body, sender, files) "
    "SELECT 'delete', id, subject, body, sender, files"
)
_OLD_SQLITE_ADD = OLD_ADD + " FROM email_search_source WHERE id = {}"
_OLD_SQLITE_FORGET = _OLD_FORGET + " FROM email_search_source WHERE id = {}"
_MOVED = "BEFORE UPDATE OF name, email_id ON attachments"
_ELSEWHERE = " WHEN NEW.email_id IS NOT OLD.email_id"  # an entry is forgotten once, or the index breaks
# (name, timing and event, email id whose entry changes, what is done)
OLD_TRIGGERS = [
    ("emails_search_insert", "AFTER INSERT ON emails", "NEW.id", _OLD_SQLITE_ADD),
    ("emails_search_update_forget", f"BEFORE UPDATE OF {TEXT_COLUMNS} ON emails", "OLD.id", _OLD_SQLITE_FORGET),
    ("emails_search_update_add", f"AFTER UPDATE OF {TEXT_COLUMNS} ON emails", "NEW.id", _OLD_SQLITE_ADD),
    ("emails_search_delete", "BEFORE DELETE ON emails", "OLD.id", _OLD_SQLITE_FORGET),
    ("attachments_search_insert_forget", "BEFORE INSERT ON attachments", "NEW.email_id", _OLD_SQLITE_FORGET),
    ("attachments_search_insert_add", "AFTER INSERT ON attachments", "NEW.email_id", _OLD_SQLITE_ADD),
    ("attachments_search_delete_forget", "BEFORE DELETE ON attachments", "OLD.email_id", _OLD_SQLITE_FORGET),
    ("attachments_search_delete_add", "AFTER DELETE ON attachments", "OLD.email_id", _OLD_SQLITE_ADD),
    ("attachments_search_update_forget", _MOVED, "OLD.email_id", _OLD_SQLITE_FORGET),
    ("attachments_search_update_add", _MOVED.replace("BEFORE", "AFTER"), "OLD.email_id", _OLD_SQLITE_ADD),
    ("attachments_search_move_forget", _MOVED + _ELSEWHERE, "NEW.email_id", _OLD_SQLITE_FORGET),
    ("attachments_search_move_add", _MOVED.replace("BEFORE", "AFTER") + _ELSEWHERE, "NEW.email_id", _OLD_SQLITE_ADD),
]

_DAY = "substr(e.date, 1, 4) || substr(e.date, 6, 2)"
FACETS = (
    "'l' || e.list_id || ' c' || substr(e.date, 1, 2) || ' x' || substr(e.date, 1, 3) || ' y' || substr(e.date, 1, 4)"
    f" || ' m' || {_DAY} || ' d' || {_DAY} || substr(e.date, 9, 2)"
)
SOURCE = OLD_SOURCE.replace("\nFROM emails e", f",\n       {FACETS} AS facets\nFROM emails e")
TABLE = OLD_TABLE.replace("files, ", "files, facets, ")
COLUMNS = "subject, body, sender, files, facets"
ADD = f"INSERT INTO email_search(rowid, {COLUMNS}) SELECT id, {COLUMNS}"
FORGET = f"INSERT INTO email_search(email_search, rowid, {COLUMNS}) SELECT 'delete', id, {COLUMNS}"
WATCHED = f"{TEXT_COLUMNS}, list_id, date"  # an email's columns the index reads


def _triggers(add: str, forget: str, watched: str) -> list[tuple[str, str, str, str]]:
    """0010's triggers with `add`/`forget` as what they do, and `watched` the columns of `emails`
    whose update re-indexes an email."""
    actions = {_OLD_SQLITE_ADD: add + " FROM email_search_source WHERE id = {}"}
    actions[_OLD_SQLITE_FORGET] = forget + " FROM email_search_source WHERE id = {}"
    return [
        (name, event.replace(TEXT_COLUMNS, watched), email_id, actions[action])
        for name, event, email_id, action in OLD_TRIGGERS
    ]


def upgrade() -> None:
    op.create_index("emails_date", "emails", ["date", "id"])
    if op.get_bind().dialect.name != "sqlite":
        return
    _make(SOURCE, TABLE, _triggers(ADD, FORGET, WATCHED))
    _fill(ADD + " FROM email_search_source WHERE id > {0} AND id <= {1}", "migration 0015: indexing facets")


def downgrade() -> None:
    op.drop_index("emails_date", "emails")
    if op.get_bind().dialect.name != "sqlite":
        return
    _make(OLD_SOURCE, OLD_TABLE, OLD_TRIGGERS)
    _fill(
        OLD_ADD + " FROM email_search_source WHERE id > {0} AND id <= {1}", "migration 0010: indexing emails for search"
    )


def _make(source: str, table: str, triggers: list[tuple[str, str, str, str]]) -> None:
    """The index made again, empty: `source` its view, `table` its FTS5 table, with `triggers`."""
    for name, *_ in OLD_TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE email_search")
    op.execute("DROP VIEW email_search_source")
    op.execute(source)
    op.execute(table)
    for name, event, email_id, action in triggers:
        op.execute(f"CREATE TRIGGER {name} {event} BEGIN {action.format(email_id)}; END")


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
