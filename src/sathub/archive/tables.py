"""Interface B tables, as created by migrations 0002, 0003, 0006 and the later ones named (queries
use these; Alembic owns the DDL).

Dates are naive UTC datetimes with whole seconds. `emails.id` is the arrival order."""

import sqlalchemy as sa

from sathub.db.schema import metadata

# The values of mailing_lists.archive_policy (Mailman's): a private list's mail is never served;
# new mail of a `never` list is not archived (what it already has stays as public as it was).
PUBLIC, PRIVATE, NEVER = "public", "private", "never"

mailing_lists = sa.Table(
    "mailing_lists",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(254), nullable=False, unique=True),  # posting address, lowercase
    sa.Column("display_name", sa.String(255), nullable=False, server_default=""),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("subject_prefix", sa.String(255), nullable=False, server_default=""),
    sa.Column("archive_policy", sa.String(16), nullable=False, server_default=PUBLIC),
    sa.Column("created_at", sa.DateTime, nullable=False),
    # Moved by the database's triggers with every change of the list's mail, threads or settings,
    # and when (migration 0024): what the archive's ETags and Last-Modified are made of.
    sa.Column("revision", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("revised_at", sa.DateTime, nullable=True),
    # The hide that took the whole list away (migration 0026; archive_removals.id): such a list
    # answers 404 at every door. NULL: shown.
    sa.Column("hidden_by", sa.Integer, nullable=True),
)

# The highest article number each list ever gave (migration 0028, archive/nntp/): raised by a
# trigger as numbered mail is inserted, never lowered, so a number is never given twice. No row:
# none given yet.
article_counters = sa.Table(
    "article_counters",
    metadata,
    sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("last_article", sa.Integer, nullable=False),
)

senders = sa.Table(
    "senders",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("address", sa.String(254), nullable=False, unique=True),  # lowercase: one sender, every spelling
    sa.Column("mailman_id", sa.String(32), nullable=False, unique=True),
)

threads = sa.Table(
    "threads",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), nullable=False),
    sa.Column("thread_id", sa.String(32), nullable=False),  # message_id_hash of the root
    sa.Column("starting_email_id", sa.Integer, nullable=True),
    sa.Column("subject", sa.Text, nullable=False, server_default=""),
    sa.Column("date_active", sa.DateTime, nullable=False),  # date of the last email archived into it
    sa.Column("emails_count", sa.Integer, nullable=False, server_default="0"),
    sa.UniqueConstraint("list_id", "thread_id", name="threads_list_thread"),
    sa.Index("threads_list_active", "list_id", "date_active", "thread_id"),
)

# The threads of a list newest first, ties by thread id ascending, without a sort (migration 0003).
sa.Index("threads_list_recent", threads.c.list_id, threads.c.date_active.desc(), threads.c.thread_id)

emails = sa.Table(
    "emails",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), nullable=False),
    sa.Column("message_id", sa.String(254), nullable=False),  # cleaned, no angle brackets
    sa.Column("message_id_hash", sa.String(32), nullable=False),
    sa.Column("sender_id", sa.Integer, sa.ForeignKey("senders.id"), nullable=False),
    sa.Column("sender_address", sa.String(254), nullable=False),  # as this email spells it (migration 0006)
    sa.Column("sender_name", sa.Text, nullable=False),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    # Searched, never shown (migration 0023): the From header's commented name when sender_name
    # is the address, and the text pipermail inlined after "next part" (mail/message.py). NULL:
    # not read from the source yet (mail stored before 0023, until `archive reindex --sources`).
    sa.Column("sender_comment", sa.Text, nullable=True),
    sa.Column("scrubbed", sa.Text, nullable=True),
    sa.Column("date", sa.DateTime, nullable=False),
    sa.Column("archived_date", sa.DateTime, nullable=False),
    sa.Column("in_reply_to", sa.String(254), nullable=True),  # cleaned parent Message-ID
    sa.Column("parent_id", sa.Integer, nullable=True),  # emails.id of the parent once archived
    sa.Column("thread_id", sa.Integer, sa.ForeignKey("threads.id"), nullable=True),
    sa.Column("thread_order", sa.Integer, nullable=False, server_default="0"),
    sa.Column("thread_depth", sa.Integer, nullable=False, server_default="0"),
    # Its number in the list's newsgroup (migration 0028): given by the writers in arrival order,
    # never changed; a hidden message keeps it in hidden_emails.
    sa.Column("article_number", sa.Integer, nullable=True),
    # Its email_references rows are written (migration 0029); NULL: mail stored before, not read
    # from its source yet (until `archive reindex --sources`).
    sa.Column("references_read", sa.Boolean, nullable=True),
    # OVER's first seven fields (migration 0030, nntp/overview.py), made by the writers; NULL: mail
    # stored before, made from the fields until `archive reindex --sources`. SQLite also indexes it
    # with (list_id, article_number) (the migration's emails_list_article_overview).
    sa.Column("overview", sa.Text, nullable=True),
    sa.UniqueConstraint("list_id", "message_id_hash", name="emails_list_hash"),
    sa.Index("emails_list_article", "list_id", "article_number", unique=True),
    sa.Index("emails_thread_order", "thread_id", "thread_order"),
    sa.Index("emails_sender_archived", "sender_id", "archived_date", "id"),
    sa.Index("emails_list_archived", "list_id", "archived_date", "id"),
    sa.Index("emails_list_in_reply_to", "list_id", "in_reply_to"),
    sa.Index("emails_parent", "parent_id"),
    sa.Index("emails_message_id", "message_id"),  # m:<Message-ID> of every list (migration 0022)
)

attachments = sa.Table(
    "attachments",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("email_id", sa.Integer, sa.ForeignKey("emails.id", ondelete="CASCADE"), nullable=False),
    sa.Column("counter", sa.Integer, nullable=False),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("content_type", sa.String(255), nullable=False),
    sa.Column("encoding", sa.String(64), nullable=True),  # declared charset, not transfer encoding
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("content", sa.LargeBinary, nullable=False),
    sa.UniqueConstraint("email_id", "counter", name="attachments_email_counter"),
)

# A list's emails in arrival order, for the mbox export's pages (migration 0008).
sa.Index("emails_list_arrival", emails.c.list_id, emails.c.id)
# The emails by date, for SQLite's search sorted by date when a word matches many (migration
# 0015: store/search_fts5.py walks the dates and tests each email against the match).
sa.Index("emails_date", emails.c.date, emails.c.id)

# Each message's source as received (migration 0008): headers and body without the mbox `From `
# line (kept in `envelope`), compressed as `compression` says; no row for mail archived before.
email_sources = sa.Table(
    "email_sources",
    metadata,
    sa.Column("email_id", sa.Integer, sa.ForeignKey("emails.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("envelope", sa.Text, nullable=True),
    sa.Column("compression", sa.String(8), nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
)

# The Message-IDs each email names in References and In-Reply-To, in public-inbox's order
# (mail/ids.py's message_references; migration 0029): public-inbox's thread is found by asking
# which emails of a list name a Message-ID (the index).
email_references = sa.Table(
    "email_references",
    metadata,
    sa.Column("email_id", sa.Integer, sa.ForeignKey("emails.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("list_id", sa.Integer, nullable=False),
    sa.Column("message_id", sa.String(254), nullable=False),
    sa.Index("email_references_list_message_id", "list_id", "message_id"),
)

# Mailman 2's pipermail article numbers (`<yyyy>-<Month>/000123.html`) of a list (migration 0008).
pipermail_numbers = sa.Table(
    "pipermail_numbers",
    metadata,
    sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("message_id_hash", sa.String(32), nullable=False),
)

# The costly doors' per-client budgets (migration 0025, archive/budgets/): when each client's
# bucket is full again, in Unix milliseconds.
archive_budgets = sa.Table(
    "archive_budgets",
    metadata,
    sa.Column("client", sa.String(128), primary_key=True),
    sa.Column("due", sa.BigInteger, nullable=False),
)
sa.Index("archive_budgets_due", archive_budgets.c.due)


# The lists anyone may read: not private, nor hidden whole (archive/access.py says it of one list).
READABLE_LIST = sa.and_(mailing_lists.c.archive_policy != PRIVATE, mailing_lists.c.hidden_by.is_(None))

# Taking mail out (migration 0026, archive/removal/): the audit log, one row per hide, unhide or
# delete that changed something.
archive_removals = sa.Table(
    "archive_removals",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("action", sa.String(8), nullable=False),  # hide, unhide, delete
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("list_name", sa.String(254), nullable=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("actor", sa.String(254), nullable=False),
    sa.Column("at", sa.DateTime, nullable=False),
    sa.Column("messages", sa.Integer, nullable=False),
    sa.Index("archive_removals_list", "list_name", "id"),
)

# What a removed message leaves, by list posting address and Message-ID hash: `hidden`, or
# `deleted` (the tombstone). Never archived again while a row is here.
HIDDEN, DELETED = "hidden", "deleted"
archive_removed = sa.Table(
    "archive_removed",
    metadata,
    sa.Column("list_name", sa.String(254), primary_key=True),
    sa.Column("message_id_hash", sa.String(32), primary_key=True),
    sa.Column("state", sa.String(8), nullable=False),
    sa.Column("date", sa.DateTime, nullable=True),
    sa.Column("removal_id", sa.Integer, sa.ForeignKey("archive_removals.id"), nullable=False),
)

# A hidden message's rows as they were, out of sight of every door; `thread_key` is its thread's
# hash, `removal_id` the hide that took it.
hidden_emails = sa.Table(
    "hidden_emails",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("list_id", sa.Integer, sa.ForeignKey("mailing_lists.id", ondelete="CASCADE"), nullable=False),
    sa.Column("message_id", sa.String(254), nullable=False),
    sa.Column("message_id_hash", sa.String(32), nullable=False),
    sa.Column("sender_id", sa.Integer, sa.ForeignKey("senders.id"), nullable=False),
    sa.Column("sender_address", sa.String(254), nullable=False),
    sa.Column("sender_name", sa.Text, nullable=False),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("sender_comment", sa.Text, nullable=True),
    sa.Column("scrubbed", sa.Text, nullable=True),
    sa.Column("date", sa.DateTime, nullable=False),
    sa.Column("archived_date", sa.DateTime, nullable=False),
    sa.Column("in_reply_to", sa.String(254), nullable=True),
    sa.Column("parent_id", sa.Integer, nullable=True),
    sa.Column("thread_id", sa.Integer, nullable=True),
    sa.Column("thread_order", sa.Integer, nullable=False),
    sa.Column("thread_depth", sa.Integer, nullable=False),
    sa.Column("thread_key", sa.String(32), nullable=True),
    sa.Column("removal_id", sa.Integer, sa.ForeignKey("archive_removals.id"), nullable=False),
    sa.Column("article_number", sa.Integer, nullable=True),
    sa.Column("references_read", sa.Boolean, nullable=True),
    sa.Column("overview", sa.Text, nullable=True),
    sa.UniqueConstraint("list_id", "message_id_hash", name="hidden_emails_list_hash"),
    sa.Index("hidden_emails_list_article", "list_id", "article_number", unique=True),
    sa.Index("hidden_emails_sender", "sender_id"),
    sa.Index("hidden_emails_list_thread", "list_id", "thread_key"),
    sa.Index("hidden_emails_removal", "removal_id"),
)
hidden_attachments = sa.Table(
    "hidden_attachments",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column(
        "email_id", sa.Integer, sa.ForeignKey("hidden_emails.id", ondelete="CASCADE"), nullable=False, index=True
    ),
    sa.Column("counter", sa.Integer, nullable=False),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("content_type", sa.String(255), nullable=False),
    sa.Column("encoding", sa.String(64), nullable=True),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("content", sa.LargeBinary, nullable=False),
)
hidden_email_sources = sa.Table(
    "hidden_email_sources",
    metadata,
    sa.Column("email_id", sa.Integer, sa.ForeignKey("hidden_emails.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("envelope", sa.Text, nullable=True),
    sa.Column("compression", sa.String(8), nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
)
hidden_email_references = sa.Table(
    "hidden_email_references",
    metadata,
    sa.Column("email_id", sa.Integer, sa.ForeignKey("hidden_emails.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("list_id", sa.Integer, nullable=False),
    sa.Column("message_id", sa.String(254), nullable=False),
)
