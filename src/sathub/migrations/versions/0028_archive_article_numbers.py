"""Interface B: article numbers, each message's number in its list's newsgroup (archive/nntp/,
docs/archive-nntp.md).

- `emails.article_number` (and `hidden_emails.article_number`: a hidden message keeps its number
  and has it again when shown) is unique in its list; `article_counters.last_article` is the
  highest number the list ever gave, so a number is never given twice: a deleted message leaves a
  gap.
- The writers give the numbers (store/writes.py, store/one_message.py) from the counter, read
  under the list's row lock that orders writers of one list (PostgreSQL; SQLite has one writer):
  in the order they commit, so a reader never sees a number appear below one it has read.
- Triggers, not the writers, move the counter up to the highest number inserted: the live archive
  call keeps its statements (one look-up, two inserts), and no path that inserts mail (an unhide
  moving rows back) can leave the counter behind. PostgreSQL: a statement trigger with its
  transition table (one write per statement, none when no number passes the counter, as for an
  unhide); SQLite: a row trigger, only when the row's number passes it.
- A table of its own, not a column of `mailing_lists`: migration 0027 keeps that row to one
  version per transaction (every search reads the table), and the counter moves in the same
  transactions as the revision does. A list without a row has given no number yet.
- The mail already archived is numbered in arrival order (emails.id), hidden mail with it.

Revision ID: 0028
Revises: 0027
"""

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

NUMBERED = ("emails", "hidden_emails")
# Every message of both tables, numbered per list in arrival order.
ALL_MAIL = " UNION ALL ".join(f"SELECT id, list_id FROM {table}" for table in NUMBERED)
NUMBERS = f"SELECT id, row_number() OVER (PARTITION BY list_id ORDER BY id) AS n FROM ({ALL_MAIL}) AS mail"


def upgrade() -> None:
    op.create_table(
        "article_counters",
        sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("last_article", sa.Integer, nullable=False),
    )
    for table in NUMBERED:
        op.add_column(table, sa.Column("article_number", sa.Integer, nullable=True))
    op.execute(f"CREATE TEMPORARY TABLE article_numbers AS {NUMBERS}")
    op.execute("CREATE UNIQUE INDEX article_numbers_id ON article_numbers (id)")
    for table in NUMBERED:
        op.execute(f"UPDATE {table} SET article_number = a.n FROM article_numbers AS a WHERE a.id = {table}.id")
    op.execute("DROP TABLE article_numbers")
    # Numbered 1 to N over both tables: the highest number is how many there are.
    counts = f"SELECT count(*) FROM ({ALL_MAIL}) AS mail WHERE list_id = mailing_lists.id"
    op.execute(f"INSERT INTO article_counters (list_id, last_article) SELECT id, ({counts}) FROM mailing_lists")
    op.create_index("emails_list_article", "emails", ["list_id", "article_number"], unique=True)
    op.create_index("hidden_emails_list_article", "hidden_emails", ["list_id", "article_number"], unique=True)
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            """
            CREATE FUNCTION emails_last_article() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO article_counters (list_id, last_article)
                SELECT list_id, max(article_number) FROM new_rows WHERE article_number IS NOT NULL GROUP BY list_id
                ON CONFLICT (list_id) DO UPDATE SET last_article = excluded.last_article
                WHERE excluded.last_article > article_counters.last_article;
                RETURN NULL;
            END $$
            """
        )
        op.execute(
            "CREATE TRIGGER emails_last_article AFTER INSERT ON emails REFERENCING NEW TABLE AS new_rows "
            "FOR EACH STATEMENT EXECUTE FUNCTION emails_last_article()"
        )
        return
    op.execute(
        "CREATE TRIGGER emails_last_article AFTER INSERT ON emails WHEN NEW.article_number > "
        "coalesce((SELECT last_article FROM article_counters WHERE list_id = NEW.list_id), 0) BEGIN "
        "INSERT INTO article_counters (list_id, last_article) VALUES (NEW.list_id, NEW.article_number) "
        "ON CONFLICT (list_id) DO UPDATE SET last_article = excluded.last_article; END"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER emails_last_article ON emails")
        op.execute("DROP FUNCTION emails_last_article()")
    else:
        op.execute("DROP TRIGGER emails_last_article")
    op.drop_index("hidden_emails_list_article", "hidden_emails")
    op.drop_index("emails_list_article", "emails")
    for table in NUMBERED:
        op.drop_column(table, "article_number")
    op.drop_table("article_counters")
