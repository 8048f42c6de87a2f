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

import importlib

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

# 0010's SQL (the view, the table, the triggers and the batched fill), defined once there.
search = importlib.import_module("sathub.migrations.versions.0010_archive_search")

_DAY = "substr(e.date, 1, 4) || substr(e.date, 6, 2)"
FACETS = (
    "'l' || e.list_id || ' c' || substr(e.date, 1, 2) || ' x' || substr(e.date, 1, 3) || ' y' || substr(e.date, 1, 4)"
    f" || ' m' || {_DAY} || ' d' || {_DAY} || substr(e.date, 9, 2)"
)
SOURCE = search.SQLITE_SOURCE.replace("\nFROM emails e", f",\n       {FACETS} AS facets\nFROM emails e")
TABLE = search.SQLITE_TABLE.replace("files, ", "files, facets, ")
COLUMNS = "subject, body, sender, files, facets"
ADD = f"INSERT INTO email_search(rowid, {COLUMNS}) SELECT id, {COLUMNS}"
FORGET = f"INSERT INTO email_search(email_search, rowid, {COLUMNS}) SELECT 'delete', id, {COLUMNS}"
WATCHED = f"{search.TEXT_COLUMNS}, list_id, date"  # an email's columns the index reads


def _triggers(add: str, forget: str, watched: str) -> list[tuple[str, str, str, str]]:
    """0010's triggers with `add`/`forget` as what they do, and `watched` the columns of `emails`
    whose update re-indexes an email."""
    actions = {search.SQLITE_ADD: add + " FROM email_search_source WHERE id = {}"}
    actions[search.SQLITE_FORGET] = forget + " FROM email_search_source WHERE id = {}"
    return [
        (name, event.replace(search.TEXT_COLUMNS, watched), email_id, actions[action])
        for name, event, email_id, action in search.SQLITE_TRIGGERS
    ]


def upgrade() -> None:
    op.create_index("emails_date", "emails", ["date", "id"])
    if op.get_bind().dialect.name != "sqlite":
        return
    _make(SOURCE, TABLE, _triggers(ADD, FORGET, WATCHED))
    search._fill(ADD + " FROM email_search_source WHERE id > {0} AND id <= {1}", "migration 0015: indexing facets")


def downgrade() -> None:
    op.drop_index("emails_date", "emails")
    if op.get_bind().dialect.name != "sqlite":
        return
    _make(search.SQLITE_SOURCE, search.SQLITE_TABLE, search.SQLITE_TRIGGERS)
    search._fill(search._ADD + " FROM email_search_source WHERE id > {0} AND id <= {1}")


def _make(source: str, table: str, triggers: list[tuple[str, str, str, str]]) -> None:
    """The index made again, empty: `source` its view, `table` its FTS5 table, with `triggers`."""
    for name, *_ in search.SQLITE_TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE email_search")
    op.execute("DROP VIEW email_search_source")
    op.execute(source)
    op.execute(table)
    for name, event, email_id, action in triggers:
        op.execute(f"CREATE TRIGGER {name} {event} BEGIN {action.format(email_id)}; END")
