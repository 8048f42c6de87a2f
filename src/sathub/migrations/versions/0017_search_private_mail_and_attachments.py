"""Interface B: SQLite's search index holds public mail alone; PostgreSQL indexes a new email once,
with its attachments (docs/archive-search.md, "Relevance" and "Speed").

SQLite: FTS5's bm25 weighs each word by how many rows of the whole index hold it, and each email
by its length against the index's average. With private mail in the index, public scores moved
when private mail arrived (30 private emails saying "candidate" took a public score from 8.256
to 8.087, and 5 reordered two results of `release`): what private mail says could be read from
public answers. The view the index reads (`email_search_source`) now shows the emails of lists
that are not private, so the triggers of 0010 and 0015, which add and forget rows through the
view, do nothing for private mail, and every statistic bm25 reads is public mail's. The private
mail already indexed is taken out here (told its values through the old view, as FTS5's external
content asks). A list whose policy turns private or back moves its emails out of or into the
index in the transaction of that change (`mailing_lists_search_policy_*`), and a list deleted
takes its emails out first (`mailing_lists_search_delete`): the cascade deletes the emails after
the list's row, when the view no longer shows them. No mail of a private list is ever searched
(every door answers 403), so it needs no index of its own.

PostgreSQL: `ts_rank` reads the ranked email alone (no statistics of the others), so private mail
stays in the index, and is left out by its list as before. The emails' trigger indexed each new
email, and the attachments' trigger indexed it again at the next statement, in the same
transaction: a second row version (its tsvectors computed, its GIN entries written, again); one
statement per attachment (an executemany) indexed it once per attachment. Now the emails'
trigger notes the new emails in a setting of the transaction (`sathub.emails_to_index`), and
they are indexed once, at commit (`emails_search_commit`, deferred), with whatever attachments
the transaction stored: batched as before, one call of `index_emails` for an import's batch. The
other triggers index again at once the emails stored before the transaction, not the noted ones.
New mail is found from its commit on, not from its statement.

Revision ID: 0017
Revises: 0016
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

# 0015's view (copied, frozen): what it does stays the same whatever becomes of 0015's file.
_DAY = "substr(e.date, 1, 4) || substr(e.date, 6, 2)"
_FACETS = (
    "'l' || e.list_id || ' c' || substr(e.date, 1, 2) || ' x' || substr(e.date, 1, 3) || ' y' || substr(e.date, 1, 4)"
    f" || ' m' || {_DAY} || ' d' || {_DAY} || substr(e.date, 9, 2)"
)
OLD_SOURCE = f"""CREATE VIEW email_search_source AS
SELECT e.id AS id, e.subject AS subject, e.content AS body,
       e.sender_name || ' ' || e.sender_address AS sender,
       coalesce((SELECT group_concat(a.name, ' ') FROM attachments a WHERE a.email_id = e.id), '') AS files,
       {_FACETS} AS facets
FROM emails e"""
SOURCE = OLD_SOURCE + " JOIN mailing_lists l ON l.id = e.list_id AND l.archive_policy != 'private'"
COLUMNS = "subject, body, sender, files, facets"
ADD = f"INSERT INTO email_search(rowid, {COLUMNS}) SELECT id, {COLUMNS} FROM email_search_source"
FORGET = (
    f"INSERT INTO email_search(email_search, rowid, {COLUMNS}) SELECT 'delete', id, {COLUMNS} FROM email_search_source"
)
PRIVATE_MAIL = (
    " WHERE id IN (SELECT e.id FROM emails e JOIN mailing_lists l ON l.id = e.list_id"
    " WHERE l.archive_policy = 'private')"
)
OF_LIST = " WHERE id IN (SELECT id FROM emails WHERE list_id = {})"
_POLICY = (
    "UPDATE OF archive_policy ON mailing_lists "
    "WHEN (OLD.archive_policy = 'private') IS NOT (NEW.archive_policy = 'private')"
)
# (name, timing and event, what is done): through the view, which shows a list's emails only
# while the list is not private.
SQLITE_TRIGGERS = [
    ("mailing_lists_search_policy_forget", f"BEFORE {_POLICY}", FORGET + OF_LIST.format("OLD.id")),
    ("mailing_lists_search_policy_add", f"AFTER {_POLICY}", ADD + OF_LIST.format("NEW.id")),
    ("mailing_lists_search_delete", "BEFORE DELETE ON mailing_lists", FORGET + OF_LIST.format("OLD.id")),
]

# 0010's trigger functions (copied, frozen), which the downgrade puts back.
OLD_FUNCTIONS = [
    """CREATE OR REPLACE FUNCTION emails_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY(SELECT id FROM new_rows)); RETURN NULL; END $$""",
    """CREATE OR REPLACE FUNCTION emails_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY[NEW.id]); RETURN NULL; END $$""",
    """CREATE OR REPLACE FUNCTION attachments_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY(SELECT DISTINCT email_id FROM new_rows)); RETURN NULL; END $$""",
    """CREATE OR REPLACE FUNCTION attachments_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY(SELECT DISTINCT email_id FROM old_rows)); RETURN NULL; END $$""",
    """CREATE OR REPLACE FUNCTION attachments_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails(ARRAY[OLD.email_id, NEW.email_id]); RETURN NULL; END $$""",
]
# The emails this transaction stored, to be indexed at its commit: a setting local to the
# transaction, so that a savepoint rolled back takes its emails off the list with their rows.
NOTED = "coalesce(nullif(current_setting('sathub.emails_to_index', true), ''), '{}')::integer[]"
POSTGRESQL_FUNCTIONS = [
    f"""CREATE FUNCTION emails_to_index() RETURNS integer[] LANGUAGE sql STABLE AS $$ SELECT {NOTED} $$""",
    # The emails `ids` indexed again now, but those the commit will index. Without a call when
    # none is left: an email's 10,000 attachments stored one statement each took 4.9 s with the
    # call, 2.7-3.4 s without.
    """CREATE FUNCTION index_emails_again(ids integer[]) RETURNS void LANGUAGE sql AS $$
    SELECT index_emails(again)
    FROM (SELECT ARRAY(SELECT unnest(ids) EXCEPT SELECT unnest(emails_to_index())) AS again) chosen
    WHERE cardinality(again) > 0
    $$""",
    """CREATE OR REPLACE FUNCTION emails_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
    PERFORM set_config('sathub.emails_to_index', (emails_to_index() || ARRAY(SELECT id FROM new_rows))::text, true);
    RETURN NULL;
    END $$""",
    # Deferred: fired at commit once per new email; the first call indexes them all.
    """CREATE FUNCTION emails_search_committing() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE ids integer[] := emails_to_index();
    BEGIN
    IF cardinality(ids) > 0 THEN
        PERFORM set_config('sathub.emails_to_index', '', true);
        PERFORM index_emails(ids);
    END IF;
    RETURN NULL;
    END $$""",
    """CREATE OR REPLACE FUNCTION emails_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails_again(ARRAY[NEW.id]); RETURN NULL; END $$""",
    """CREATE OR REPLACE FUNCTION attachments_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails_again(ARRAY(SELECT email_id FROM new_rows)); RETURN NULL; END $$""",
    """CREATE OR REPLACE FUNCTION attachments_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails_again(ARRAY(SELECT email_id FROM old_rows)); RETURN NULL; END $$""",
    """CREATE OR REPLACE FUNCTION attachments_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM index_emails_again(ARRAY[OLD.email_id, NEW.email_id]); RETURN NULL; END $$""",
]
COMMIT_TRIGGER = (
    "CREATE CONSTRAINT TRIGGER emails_search_commit AFTER INSERT ON emails DEFERRABLE INITIALLY DEFERRED "
    "FOR EACH ROW EXECUTE FUNCTION emails_search_committing()"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in [*POSTGRESQL_FUNCTIONS, COMMIT_TRIGGER]:
            op.execute(statement)
        return
    op.execute(FORGET + PRIVATE_MAIL)  # through the old view, which still shows them
    op.execute("DROP VIEW email_search_source")
    op.execute(SOURCE)
    for name, event, action in SQLITE_TRIGGERS:
        op.execute(f"CREATE TRIGGER {name} {event} BEGIN {action}; END")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER emails_search_commit ON emails")
        for statement in OLD_FUNCTIONS:
            op.execute(statement)
        for function in ("emails_search_committing()", "index_emails_again(integer[])", "emails_to_index()"):
            op.execute(f"DROP FUNCTION {function}")
        return
    for name, *_ in SQLITE_TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP VIEW email_search_source")
    op.execute(OLD_SOURCE)
    op.execute(ADD + PRIVATE_MAIL)
