"""Interface B: on PostgreSQL, a list's revision moves once per transaction, not once per statement
(migration 0024's triggers; docs/archive-caching.md).

- 0024's statement triggers updated the list's row after every statement that wrote its rows,
  each update leaving a dead row version in `mailing_lists`, which every search reads: an import
  of 1,000,000 messages grew the one-row-per-list table to 17,037 pages, and a rare word's search
  took 53.6 ms instead of 15.0 ms until VACUUM FULL.
- The triggers now name the lists a statement touched to `mailing_lists_revise`, which updates
  only those this transaction has not moved yet and records the ones it moved in a setting local
  to the transaction (`sathub.revised_lists`). The first write of a transaction still moves the
  revision and locks the row until the commit, so the ETags' rule holds as before, in every
  process: every committed change of a list's rows moves its revision, and `revised_at` (now the
  time of the transaction's first change of the list) never moves back. A savepoint rolled back
  takes its part of the record with it, as it takes its update.
- Not `xmin` = the current transaction: a row written by this transaction is not a revision moved
  by it (a settings update that changed nothing, a list created in it, 0026's `hidden_by`), so
  the mail written after such an update would keep the old ETag.
- Row versions of `mailing_lists` written (pg_stat_user_tables.n_tup_upd), and its size, per
  statement → per transaction: gpsd-dev's import (9,567 messages, 10 batches) 11,919 → 10, then
  1,000 of python-committers' messages archived live (999 stored, one transaction each) 5,431 →
  999, the table 148 pages → 1 (autovacuum on); gpsd-users' import (5,548 messages, 6 batches)
  7,367 → 6, 96 pages → 1 (autovacuum off on the table). The import's time did not move beyond the
  machine's noise (4.6-6.9 s either way, alternated three times).
- SQLite keeps 0024's row triggers: it leaves no dead row versions, and its triggers cannot tell
  one transaction from the next.

Revision ID: 0027
Revises: 0026
"""

from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

# 0024's triggers, whose functions this migration rewrites (the triggers stay): each child table
# with how a changed row names its list.
CHILDREN = {
    "emails": "{row}.list_id",
    "threads": "{row}.list_id",
    "email_sources": "(SELECT list_id FROM emails WHERE id = {row}.email_id)",
    "attachments": "(SELECT list_id FROM emails WHERE id = {row}.email_id)",
}
EVENTS = {"insert": ("new_rows",), "update": ("old_rows", "new_rows"), "delete": ("old_rows",)}
SENDER_LISTS = (
    "SELECT e.list_id FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN emails e ON e.sender_id = n.id "
    "WHERE o.mailman_id IS DISTINCT FROM n.mailman_id"
)
PG_NOW = "date_trunc('second', clock_timestamp() AT TIME ZONE 'UTC')"
# 0024's body: one update per statement.
EVERY_STATEMENT = (
    f"UPDATE mailing_lists SET revision = revision + 1, revised_at = greatest(revised_at, {PG_NOW}) "
    "WHERE id IN ({lists});"
)
ONCE = "PERFORM mailing_lists_revise(ARRAY({lists}));"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        f"""
        CREATE FUNCTION mailing_lists_revise(touched integer[]) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
            moved integer[] := coalesce(nullif(current_setting('sathub.revised_lists', true), ''), '{{}}')::integer[];
            now_moved integer[];
        BEGIN
            IF touched <@ moved THEN
                RETURN;  -- all moved already: not even a look at their rows
            END IF;
            WITH revised AS (
                UPDATE mailing_lists SET revision = revision + 1, revised_at = greatest(revised_at, {PG_NOW})
                WHERE id = ANY(touched) AND id <> ALL(moved)
                RETURNING id
            )
            SELECT array_agg(id) INTO now_moved FROM revised;
            IF now_moved IS NOT NULL THEN
                PERFORM set_config('sathub.revised_lists', (moved || now_moved)::text, true);
            END IF;
        END $$
        """
    )
    _trigger_functions(ONCE)


def _trigger_functions(body: str) -> None:
    """0024's trigger functions (same names, so the triggers call them) with `body` moving the lists."""
    for table, list_id in CHILDREN.items():
        for event, rows in EVENTS.items():
            lists = " UNION ".join(f"SELECT {list_id.format(row='r')} FROM {r} r" for r in rows)
            _function(f"{table}_revision_{event}", body.format(lists=lists))
    _function("senders_revision", body.format(lists=SENDER_LISTS))


def _function(name: str, body: str) -> None:
    op.execute(
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body} RETURN NULL; END $$"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _trigger_functions(EVERY_STATEMENT)
    op.execute("DROP FUNCTION mailing_lists_revise(integer[])")
