"""Interface B: each list's revision, kept by the database, for the archive's conditional GETs
(archive/caching.py, docs/archive-caching.md).

- `mailing_lists.revision` grows by at least one in every transaction that changes what any
  answer about the list shows: its mail (`emails`, `email_sources`, `attachments`), its threads,
  a Mailman user id given to one of its senders (`archive senders load`: the API's and the feeds'
  sender links), or its own settings (name, display name, description, subject prefix, archive policy, creation
  date). `mailing_lists.revised_at` is when that last happened (UTC, whole seconds: an HTTP date
  has no finer grain), never moving back; for the lists already there, the time of this
  migration.
- Triggers, not the writers: every path that writes the archive (the import, Mailman's archive
  call, re-threading, corrections, `archive lists sync`, a manual statement) moves the revision
  in its own transaction, so an ETag made of it changes the moment the change commits, in every
  process. The list's row is then locked by the writer until it commits: writers of one list
  take their turns at it (on PostgreSQL; SQLite has one writer at a time anyway).
- Whole-archive answers (the index, search) are made of the sum of the lists' revisions, which
  grows with every commit that changes any list.
- SQLite: row triggers, each one update of the list's row. PostgreSQL: statement triggers with
  transition tables, one update per statement whatever its rows (an import's batch): a row
  trigger updating one row per inserted email would leave a chain of row versions to walk within
  the transaction. What they cost an import (gpsd-users, 5,548 messages, with and without them,
  alternated twice): SQLite 2,912 → 2,552 msg/s (12 %), PostgreSQL 1,554 → 1,455 msg/s (6 %).
- The settings' trigger moves the revision only when a setting changed, so that
  `archive lists sync` finding nothing new keeps every ETag.

Revision ID: 0024
Revises: 0023
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

SETTINGS = ("name", "display_name", "description", "subject_prefix", "archive_policy", "created_at")
# The tables whose rows belong to a list, each with how a changed row names its list.
CHILDREN = {
    "emails": "{row}.list_id",
    "threads": "{row}.list_id",
    "email_sources": "(SELECT list_id FROM emails WHERE id = {row}.email_id)",
    "attachments": "(SELECT list_id FROM emails WHERE id = {row}.email_id)",
}
# A sender's new Mailman user id changes the answers of the lists that sender wrote to (one range
# of emails_sender_archived per sender).
SENDER_LISTS = "SELECT list_id FROM emails WHERE sender_id = {row}.id"
SQLITE_NOW = "strftime('%Y-%m-%d %H:%M:%S', 'now')"
PG_NOW = "date_trunc('second', clock_timestamp() AT TIME ZONE 'UTC')"


def upgrade() -> None:
    op.add_column("mailing_lists", sa.Column("revision", sa.BigInteger, nullable=False, server_default="0"))
    op.add_column("mailing_lists", sa.Column("revised_at", sa.DateTime, nullable=True))
    # Whatever the lists hold was there before now: the first Last-Modified of each.
    now = PG_NOW if op.get_bind().dialect.name == "postgresql" else SQLITE_NOW
    op.execute(f"UPDATE mailing_lists SET revised_at = {now}")
    if op.get_bind().dialect.name == "postgresql":
        _postgresql_triggers()
    else:
        _sqlite_triggers()


def _sqlite_triggers() -> None:
    bump = (
        "UPDATE mailing_lists SET revision = revision + 1, "
        f"revised_at = max(coalesce(revised_at, ''), {SQLITE_NOW}) WHERE id IN ({{lists}});"
    )
    for table, list_id in CHILDREN.items():
        for event, rows in (("INSERT", ("NEW",)), ("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",))):
            body = bump.format(lists=", ".join(list_id.format(row=row) for row in rows))
            op.execute(f"CREATE TRIGGER {table}_revision_{event.lower()} AFTER {event} ON {table} BEGIN {body} END")
    changed = " OR ".join(f"NEW.{column} IS NOT OLD.{column}" for column in SETTINGS)
    op.execute(
        "CREATE TRIGGER senders_revision AFTER UPDATE OF mailman_id ON senders "
        f"WHEN NEW.mailman_id IS NOT OLD.mailman_id BEGIN {bump.format(lists=SENDER_LISTS.format(row='NEW'))} END"
    )
    op.execute(
        f"CREATE TRIGGER mailing_lists_revision AFTER UPDATE OF {', '.join(SETTINGS)} ON mailing_lists "
        f"WHEN {changed} BEGIN {bump.format(lists='NEW.id')} END"
    )


def _postgresql_triggers() -> None:
    for table, list_id in CHILDREN.items():
        lists = " UNION ".join(f"SELECT {list_id.format(row='r')} FROM {rows} r" for rows in ("{0}", "{1}"))
        for event, rows in (
            ("INSERT", ("new_rows", "new_rows")),
            ("UPDATE", ("old_rows", "new_rows")),
            ("DELETE", ("old_rows", "old_rows")),
        ):
            function = f"{table}_revision_{event.lower()}"
            op.execute(
                f"""
                CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    UPDATE mailing_lists SET revision = revision + 1,
                        revised_at = greatest(revised_at, {PG_NOW})
                    WHERE id IN ({lists.format(*rows)});
                    RETURN NULL;
                END $$
                """
            )
            tables = " ".join(sorted({f"{'OLD' if r == 'old_rows' else 'NEW'} TABLE AS {r}" for r in rows}))
            op.execute(
                f"CREATE TRIGGER {function} AFTER {event} ON {table} REFERENCING {tables} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
    op.execute(
        f"""
        CREATE FUNCTION senders_revision() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE mailing_lists SET revision = revision + 1, revised_at = greatest(revised_at, {PG_NOW})
            WHERE id IN (SELECT e.list_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                         JOIN emails e ON e.sender_id = n.id
                         WHERE o.mailman_id IS DISTINCT FROM n.mailman_id);
            RETURN NULL;
        END $$
        """
    )
    op.execute(
        "CREATE TRIGGER senders_revision AFTER UPDATE ON senders REFERENCING OLD TABLE AS old_rows "
        "NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION senders_revision()"
    )
    changed = " OR ".join(f"NEW.{column} IS DISTINCT FROM OLD.{column}" for column in SETTINGS)
    op.execute(
        f"""
        CREATE FUNCTION mailing_lists_revision() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            -- A setting changed (not the revision itself, which the triggers above move).
            IF NEW.revision = OLD.revision AND ({changed}) THEN
                NEW.revision := OLD.revision + 1;
                NEW.revised_at := greatest(OLD.revised_at, {PG_NOW});
            END IF;
            RETURN NEW;
        END $$
        """
    )
    op.execute(
        "CREATE TRIGGER mailing_lists_revision BEFORE UPDATE ON mailing_lists "
        "FOR EACH ROW EXECUTE FUNCTION mailing_lists_revision()"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER mailing_lists_revision ON mailing_lists")
        op.execute("DROP FUNCTION mailing_lists_revision()")
        op.execute("DROP TRIGGER senders_revision ON senders")
        op.execute("DROP FUNCTION senders_revision()")
        for table in CHILDREN:
            for event in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER {table}_revision_{event} ON {table}")
                op.execute(f"DROP FUNCTION {table}_revision_{event}()")
    else:
        op.execute("DROP TRIGGER mailing_lists_revision")
        op.execute("DROP TRIGGER senders_revision")
        for table in CHILDREN:
            for event in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER {table}_revision_{event}")
    op.drop_column("mailing_lists", "revised_at")
    op.drop_column("mailing_lists", "revision")
