"""What each page of pages/browse.py shows, read in one worker-thread call from store functions
only: a function per page, taking the connection and the path's values, answering the template's
context or raising ArchiveError (404 unknown, 403 private)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sathub.archive.access import HASH, visible_list
from sathub.archive.edge import ArchiveError
from sathub.archive.mail.dates import utc_now
from sathub.archive.pages.thread_tree import layout, nest
from sathub.archive.store import browse_reads, list_reads, listing, reads
from sathub.db.engines import Connection, Row

LATEST_THREADS = 30
MOST_ACTIVE_THREADS = 10
# "Most active" looks at the threads active in the 30 days before the list's newest activity (not
# before today): a list that went quiet years ago still shows what was discussed most at its end.
ACTIVE_WINDOW = timedelta(days=30)
THREAD_PAGE_EMAILS = 1000  # a thread page shows at most this many messages
# HyperKitty's month paths take 4 digits; the last month whose end a datetime can hold is 9998-12.
FIRST_YEAR, LAST_YEAR = 1, 9998


def _visible_list(conn: Connection, address: str) -> Row:
    return visible_list(
        conn, address, f"There is no list {address} in this archive.", "The archive of {name} is private."
    )


def index_rows(conn: Connection) -> dict:
    return {"lists": browse_reads.public_lists_with_totals(conn)}


def list_rows(conn: Connection, address: str) -> dict:
    mailing_list = _visible_list(conn, address)
    latest = list_reads.list_threads(conn, mailing_list.id, listing.Page(LATEST_THREADS, 0))
    most_active: Sequence[Row] = []
    if latest:  # latest[0] is the list's most recently active thread
        since = latest[0].date_active - ACTIVE_WINDOW
        most_active = browse_reads.most_active_threads(conn, mailing_list.id, since, MOST_ACTIVE_THREADS)
    months = browse_reads.months_with_mail(conn, mailing_list.id)
    return {
        "mailing_list": mailing_list,
        "threads": latest,
        "most_active": most_active,
        "years": _by_year(months),
        "active_since": latest[0].date_active - ACTIVE_WINDOW if latest else None,
    }


def _by_year(months) -> list[tuple[int, list]]:
    """[(year, [(month, count), …]), …], newest first, from months_with_mail's rows."""
    years: dict[int, list] = {}
    for year, month, count in months:
        years.setdefault(year, []).append((month, count))
    return list(years.items())


def month_rows(conn: Connection, address: str, year: int, month: int) -> dict:
    mailing_list = _visible_list(conn, address)
    if not (FIRST_YEAR <= year <= LAST_YEAR and 1 <= month <= 12):
        raise ArchiveError(404, f"There is no month {year}/{month} in the archive of {mailing_list.name}.")
    return _month(conn, mailing_list, year, month, latest=False)


def latest_rows(conn: Connection, address: str) -> dict:
    """The month of the list's newest mail (HyperKitty shows the calendar's month, which is empty
    for a list that has gone quiet); this month for a list without mail."""
    mailing_list = _visible_list(conn, address)
    newest = browse_reads.newest_archived(conn, mailing_list.id) or utc_now()
    return _month(conn, mailing_list, newest.year, newest.month, latest=True)


def _month(conn: Connection, mailing_list: Row, year: int, month: int, *, latest: bool) -> dict:
    begin = datetime(year, month, 1)
    end = datetime(year + month // 12, month % 12 + 1, 1)
    around = browse_reads.mail_around(conn, mailing_list.id, begin, end)
    older = (around.before.year, around.before.month) if around.before else None
    newer = (around.after.year, around.after.month) if around.after else None
    return {
        "mailing_list": mailing_list,
        "year": year,
        "month": month,
        "latest": latest,
        "threads": browse_reads.month_threads(conn, mailing_list.id, begin, end),
        "older": older,
        "newer": newer,
    }


def thread_rows(conn: Connection, address: str, thread_id: str) -> dict:
    mailing_list = _visible_list(conn, address)
    thread = list_reads.find_thread(conn, mailing_list.id, thread_id) if HASH.fullmatch(thread_id) else None
    if thread is None:
        raise ArchiveError(404, f"There is no such thread in {mailing_list.name}.")
    emails = browse_reads.thread_messages(conn, thread.id, THREAD_PAGE_EMAILS)
    tree = nest(emails)
    return {
        "mailing_list": mailing_list,
        "thread": thread,
        "layout": layout(tree),
        "shown": len(emails),
        "participants": len({email.sender_address.lower() for email in emails}),
        "attachments": browse_reads.thread_attachments(conn, thread.id) if emails else {},
    }


def message_rows(conn: Connection, address: str, message_id_hash: str) -> dict:
    mailing_list = _visible_list(conn, address)
    email = reads.find_email(conn, mailing_list, message_id_hash) if HASH.fullmatch(message_id_hash) else None
    if email is None:
        raise ArchiveError(404, f"There is no such message in {mailing_list.name}.")
    return {
        "mailing_list": mailing_list,
        "email": email,
        "children": reads.email_children(conn, email.id),
        "attachments": reads.email_attachments(conn, email.id),
    }
