"""Interface B: the search finds the names pipermail wrote in comments and the text it inlined after
"next part".

- `f:cannon` found nothing on the pipermail lists, whose From lines read `brett at python.org
  (Brett Cannon)`: HyperKitty's rule names such a sender by the address (the read API keeps it),
  and the index read that name and the address alone. `emails.sender_comment` holds the name of
  the comment when the shown name is the address, and the index reads it as the sender's.
- What pipermail inlined after a `-------------- next part --------------` line (patches, logs)
  is not `content` (HyperKitty's rule), and was not searchable. `emails.scrubbed` holds it,
  without pipermail's notes of what it removed (`A non-text attachment was scrubbed...`), and the
  index reads it as the text's, after `content`.

Both columns are NULL until read: this migration holds schema alone (frozen: it parses no mail),
and the mail stored before it keeps NULL ("not read yet", apart from '', "read, nothing found")
until `sathub archive reindex --sources` reads them from the stored sources by the import's own
rules (mail archived before 0008 kept none, and stays as it was). The import and Mailman's
archive call write both columns of new mail. The index reads NULL as '', so the words it holds of
an email not read yet are the words it held before; the triggers that index an email again when
its text changes watch the new columns too, and (both backends) only when their text changed:
marking the many emails with nothing found as read ('' for NULL) re-indexes none of them.

Revision ID: 0023
Revises: 0022
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

BATCH = 5_000  # emails indexed a statement
NEW = ("sender_comment", "scrubbed")
_WITH_NEW = "SELECT id FROM emails WHERE sender_comment != '' OR scrubbed != ''"

# SQLite: 0017's view and 0015's update triggers (copied, frozen), and the same reading the columns.
_DAY = "substr(e.date, 1, 4) || substr(e.date, 6, 2)"
_FACETS = (
    "'l' || e.list_id || ' c' || substr(e.date, 1, 2) || ' x' || substr(e.date, 1, 3) || ' y' || substr(e.date, 1, 4)"
    f" || ' m' || {_DAY} || ' d' || {_DAY} || substr(e.date, 9, 2)"
)
_BODY, _SENDER = "e.content", "e.sender_name || ' ' || e.sender_address"
OLD_SOURCE = f"""CREATE VIEW email_search_source AS
SELECT e.id AS id, e.subject AS subject, {_BODY} AS body,
       {_SENDER} AS sender,
       coalesce((SELECT group_concat(a.name, ' ') FROM attachments a WHERE a.email_id = e.id), '') AS files,
       {_FACETS} AS facets
FROM emails e JOIN mailing_lists l ON l.id = e.list_id AND l.archive_policy != 'private'"""
SOURCE = OLD_SOURCE.replace(_BODY, "e.content || char(10) || coalesce(e.scrubbed, '')").replace(
    _SENDER, _SENDER + " || ' ' || coalesce(e.sender_comment, '')"
)
_COLUMNS = "subject, body, sender, files, facets"
ADD = f"INSERT INTO email_search(rowid, {_COLUMNS}) SELECT id, {_COLUMNS} FROM email_search_source"
FORGET = (
    f"INSERT INTO email_search(email_search, rowid, {_COLUMNS}) "
    f"SELECT 'delete', id, {_COLUMNS} FROM email_search_source"
)
OLD_WATCHED = "subject, content, sender_name, sender_address, list_id, date"
WATCHED = OLD_WATCHED + ", sender_comment, scrubbed"


def _changed(watched: str, distinct: str) -> str:
    """A watched column's text changed; NULL (not read yet) is the '' the index reads for it."""

    def value(row: str, column: str) -> str:
        return f"coalesce({row}.{column}, '')" if column in NEW else f"{row}.{column}"

    return " OR ".join(f"{value('OLD', c)} {distinct} {value('NEW', c)}" for c in watched.split(", "))


def _sqlite_triggers(watched: str) -> list[str]:
    # 0015's triggers fire on any UPDATE naming a watched column; watching the new ones, they fire
    # only when a text changed, so that `archive reindex --sources` marking an email read ('' for
    # NULL) does not re-index it. Both test the same condition: they forget and add in pairs.
    when = f"WHEN {_changed(watched, 'IS NOT')} " if watched == WATCHED else ""
    return [
        f"CREATE TRIGGER emails_search_update_forget BEFORE UPDATE OF {watched} ON emails "
        f"{when}BEGIN {FORGET} WHERE id = OLD.id; END",
        f"CREATE TRIGGER emails_search_update_add AFTER UPDATE OF {watched} ON emails "
        f"{when}BEGIN {ADD} WHERE id = NEW.id; END",
    ]


# PostgreSQL: 0014's index_emails and 0013's update trigger (copied, frozen), and the same reading
# the columns.
_PG_BODY = "search_field(left(e.content, 250000), 'B')"
_PG_SENDER = "search_field(e.sender_name || ' ' || e.sender_address, 'C')"
OLD_INDEX_EMAILS = f"""CREATE OR REPLACE FUNCTION index_emails(ids integer[]) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path FROM CURRENT SET gin_pending_list_limit = 256 AS $$
    BEGIN
    IF cardinality(ids) >= 100 THEN
        PERFORM set_config('gin_pending_list_limit', '65536', true);
    END IF;
    INSERT INTO email_search (email_id, list_id, date, heading, document)
    SELECT e.id, e.list_id, e.date, f.subject || f.others, f.subject || f.body || f.others
    FROM emails e, LATERAL (SELECT search_field(e.subject, 'A') AS subject, {_PG_BODY} AS body,
        {_PG_SENDER} || search_field(coalesce((SELECT string_agg(a.name, ' ' ORDER BY a.counter)
        FROM attachments a WHERE a.email_id = e.id), ''), 'D') AS others OFFSET 0) f
    WHERE e.id = ANY(ids)
    ON CONFLICT (email_id) DO UPDATE SET list_id = excluded.list_id, date = excluded.date,
        heading = excluded.heading, document = excluded.document;
    IF cardinality(ids) >= 100 THEN
        PERFORM gin_clean_pending_list('email_search_document'::regclass);
        PERFORM gin_clean_pending_list('email_search_heading'::regclass);
    END IF;
    END $$"""
INDEX_EMAILS = OLD_INDEX_EMAILS.replace(
    _PG_BODY, "search_field(left(e.content || E'\\n' || coalesce(e.scrubbed, ''), 250000), 'B')"
).replace(
    _PG_SENDER,
    "search_field(e.sender_name || ' ' || e.sender_address || ' ' || coalesce(e.sender_comment, ''), 'C')",
)


def _pg_trigger(watched: str) -> str:
    return (
        f"CREATE TRIGGER emails_search_update AFTER UPDATE OF {watched} ON emails "
        f"FOR EACH ROW WHEN ({_changed(watched, 'IS DISTINCT FROM')}) EXECUTE FUNCTION emails_search_updated()"
    )


def upgrade() -> None:
    for column in NEW:
        op.add_column("emails", sa.Column(column, sa.Text, nullable=True))
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_index(SOURCE, WATCHED)
    else:
        _pg_index(INDEX_EMAILS, WATCHED)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_index(OLD_SOURCE, OLD_WATCHED)
        for column in NEW:  # SQLite drops a column in place (3.35); the table has triggers to keep
            op.execute(f"ALTER TABLE emails DROP COLUMN {column}")
    else:
        _pg_index(OLD_INDEX_EMAILS, OLD_WATCHED)
        for column in NEW:
            op.drop_column("emails", column)


def _sqlite_index(source: str, watched: str) -> None:
    """The view `source` and the update triggers watching `watched`, and the emails with a commented
    name or scrubbed text indexed again (none on the upgrade, whose columns are not read yet):
    forgotten through the view in place (whose values FTS5 holds), added through the new one."""
    op.execute(f"{FORGET} WHERE id IN ({_WITH_NEW})")
    for name in ("emails_search_update_forget", "emails_search_update_add"):
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP VIEW email_search_source")
    op.execute(source)
    for trigger in _sqlite_triggers(watched):
        op.execute(trigger)
    op.execute(f"{ADD} WHERE id IN ({_WITH_NEW})")


def _pg_index(index_emails: str, watched: str) -> None:
    """`index_emails` and the update trigger watching `watched`, and the emails with a commented
    name or scrubbed text indexed again (none on the upgrade, whose columns are not read yet)."""
    op.execute(index_emails)
    op.execute("DROP TRIGGER emails_search_update ON emails")
    op.execute(_pg_trigger(watched))
    conn = op.get_bind()
    ids = list(conn.execute(sa.text(_WITH_NEW + " ORDER BY id")).scalars())
    for first in range(0, len(ids), BATCH):
        conn.execute(sa.text("SELECT index_emails(:ids)"), {"ids": ids[first : first + BATCH]})
