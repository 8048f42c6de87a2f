"""What each of public-inbox's forms answers, from one connection (called in a worker thread by
door.py): the redirects, the message page (300 for a Message-ID no inbox here holds), the raw
source (public-inbox's mboxrd: mboxrd.py) and what the thread's mbox holds (sent by mboxes.py), the
thread pages and Atom feeds.
Status codes, content types and headers are public-inbox-httpd 1.9's (docs/public-inbox.md)."""

from __future__ import annotations

import re
from array import array
from datetime import UTC, datetime

from starlette.responses import RedirectResponse, Response

from sathub.archive.edge import ArchiveError
from sathub.archive.feeds.render import FeedContent, atom
from sathub.archive.mail.headers import modern_text
from sathub.archive.mail.kept_source import source_of
from sathub.archive.mail.message import first_headers, parse_message
from sathub.archive.public_inbox.mboxes import Mbox
from sathub.archive.public_inbox.mboxrd import one_message, split
from sathub.archive.public_inbox.paths import SLASHLESS, Target, message_id_spellings
from sathub.archive.public_inbox.site import Inboxes
from sathub.archive.public_inbox.thread_rule import same_thread, searched_word
from sathub.archive.store import attachments, email_sources, feeds, public_inbox
from sathub.archive.web_door import HEADERS, render_page
from sathub.db.engines import Connection, Row

# Topics on one page of an inbox, and entries of a feed (public-inbox's own figures).
TOPICS_PER_PAGE, FEED_ENTRIES = 200, 25
SHOWN_HEADERS = ("From", "To", "Cc", "Subject", "Date")
_CHARSET = re.compile(rb"""charset\s*=\s*["']?([^"';\s]*)""", re.I)
_CONTENT_TYPE = re.compile(rb"^Content-Type:[ \t]*([^\n]*)", re.I | re.M)
_FILENAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def answer(conn: Connection, inboxes: Inboxes, target: Target, offset: int) -> Response:
    """The answer to `target` (ArchiveError 404 for what is not there)."""
    if target.kind == "inboxes":
        return _html("pi_inboxes.html", inboxes=inboxes, names=sorted(inboxes.names))
    if target.kind == "inbox_slash":
        if inboxes.list_ids(target.inbox or "") is not None:
            return RedirectResponse(inboxes.inbox_url(target.inbox or ""), 301)
        return _found_elsewhere(conn, inboxes, target.message_id or "")
    if target.kind == "redirect":
        return _found_elsewhere(conn, inboxes, target.message_id or "")
    list_ids = inboxes.list_ids(target.inbox or "")
    if list_ids is None or target.kind == "unknown":
        raise ArchiveError(404)
    inbox = target.inbox or ""
    if target.kind == "topics":
        rows = public_inbox.topics(conn, list_ids, TOPICS_PER_PAGE + 1, offset)
        return _html(
            "pi_topics.html", inboxes=inboxes, inbox=inbox, topics=rows[:TOPICS_PER_PAGE], offset=offset,
            more=len(rows) > TOPICS_PER_PAGE, per_page=TOPICS_PER_PAGE,
        )  # fmt: skip
    if target.kind == "new_atom":
        newest = public_inbox.newest(conn, list_ids, FEED_ENTRIES)
        return feed(conn, inboxes, inbox, newest, inboxes.inbox_url(inbox) + "new.atom", f"public inbox {inbox}")
    segment = target.message_id or ""
    if target.kind == "message_slash":
        return RedirectResponse(inboxes.inbox_url(inbox) + segment + "/", 301)
    if target.kind == "form_slash":
        return RedirectResponse(inboxes.inbox_url(inbox) + segment + "/" + SLASHLESS[target.form], 301)
    message = _find(conn, list_ids, segment)
    if message is None:
        if target.form:
            raise ArchiveError(404)
        return _not_found_page(conn, inboxes, inbox, segment)
    if target.form == "raw":
        return _raw(conn, message)
    thread = thread_of(conn, message)
    if target.form == "t.atom":
        newest = sorted(thread, key=lambda row: (row.date, row.id), reverse=True)[:FEED_ENTRIES]
        url = inboxes.message_url(inbox, message.message_id, "t.atom")
        return feed(conn, inboxes, inbox, newest, url, message.subject)
    shown = [message.id] if target.form == "" else [row.id for row in thread]
    texts = {row.id: row for row in public_inbox.message_rows(conn, shown)}
    if target.form == "":
        return _html(
            "pi_message.html", inboxes=inboxes, inbox=inbox, message=message,
            headers=_shown_headers(texts[message.id]), text=texts[message.id].content,
            thread=sorted(thread, key=lambda row: (row.date, row.id)),
        )  # fmt: skip
    nested = target.form == "t/"
    order = (lambda row: (row.thread_id or 0, row.thread_order)) if nested else (lambda row: (row.date, row.id))
    return _html(
        "pi_thread.html", inboxes=inboxes, inbox=inbox, message=message, nested=nested,
        emails=[texts[row.id] for row in sorted(thread, key=order)],
    )  # fmt: skip


def thread_mbox(conn: Connection, inboxes: Inboxes, target: Target) -> tuple[str, Mbox]:
    """`<mid>/t.mbox.gz`: its file name (the thread's first subject) and its messages, public-inbox's
    thread in arrival order (ArchiveError 404 for an unknown inbox or Message-ID)."""
    list_ids = inboxes.list_ids(target.inbox or "")
    message = _find(conn, list_ids, target.message_id or "") if list_ids is not None else None
    if message is None:
        raise ArchiveError(404)
    thread = thread_of(conn, message)
    return file_name(thread[0].subject), Mbox(array("q", [row.id for row in thread]))


def thread_of(conn: Connection, message: Row) -> list[Row]:
    """public-inbox's thread of `message` on its list (thread_rule.py), in arrival order."""
    referenced = public_inbox.references_thread(conn, message.list_id, message.message_id)
    candidates = public_inbox.subject_candidates(conn, message.list_id, searched_word(message.subject))
    return same_thread(message, referenced, candidates)


def _find(conn: Connection, list_ids: list[int], segment: str) -> Row | None:
    for message_id in message_id_spellings(segment):
        if found := public_inbox.find_message(conn, list_ids, message_id):
            return found
    return None


def _found_elsewhere(conn: Connection, inboxes: Inboxes, segment: str) -> Response:
    """302 to the message on the first public list that holds it (public-inbox's `/<mid>`)."""
    message = _find(conn, list(inboxes.ids.values()), segment)
    if message is None:
        raise ArchiveError(404)
    return RedirectResponse(inboxes.message_url(inboxes.name_of(message.list_id), message.message_id), 302)


def _not_found_page(conn: Connection, inboxes: Inboxes, inbox: str, segment: str) -> Response:
    """public-inbox's 300: the Message-ID is not in this inbox; where else it may be."""
    message_id = message_id_spellings(segment)[0]
    elsewhere = _find(conn, list(inboxes.ids.values()), segment)
    other = inboxes.name_of(elsewhere.list_id) if elsewhere else None
    body = render_page("pi_not_found.html", inboxes=inboxes, inbox=inbox, message_id=message_id, other=other)
    return Response(body, 300, HEADERS)


def _source(conn: Connection, message: Row) -> bytes:
    row = email_sources.email_source(conn, message.list_id, message.message_id_hash)
    if row is None:  # removed since it was found
        raise ArchiveError(404)
    rebuilt = [] if row.data is not None else attachments.attachments_to_rebuild(conn, [row.id])[row.id]
    return source_of(row, rebuilt)


def raw_charset(source: bytes) -> str:
    """The charset public-inbox's `raw` names: the Content-Type's (us-ascii without one; UTF-8
    when it names none, or one that could inject a header)."""
    header = split(source)[0]
    content_type = _CONTENT_TYPE.search(header)
    if content_type is None:
        return "us-ascii"
    charset = _CHARSET.search(content_type.group(1))
    name = charset.group(1).decode("latin-1") if charset else ""
    return name if name and re.fullmatch(r"[A-Za-z0-9_-]+", name) else "UTF-8"


def file_name(subject: str) -> str:
    """public-inbox's to_filename of a subject: its first line, runs of other characters than
    letters, digits, `_` and `.` as `-`, no dots or dashes at either end; `no-subject` for none."""
    text = _FILENAME_UNSAFE.sub("-", (subject.split("\n") or [""])[0])
    text = re.sub(r"\.+", ".", text).strip(".-")
    return text or "no-subject"


def _raw(conn: Connection, message: Row) -> Response:
    source = _source(conn, message)
    name = file_name(re.sub(r"\Are:\s+", "", message.subject, flags=re.I))
    headers = {
        "Content-Type": f"text/plain; charset={raw_charset(source)}",
        "Content-Disposition": f"inline; filename={name}.txt",
    }
    return Response(one_message(source), 200, headers)


def _shown_headers(row: Row) -> list[tuple[str, str]]:
    """The header fields a message page shows, decoded, from its source (or its stored fields)."""
    if row.data is None:
        return [("From", f"{row.sender_name} <{row.sender_address}>"), ("Subject", row.subject)]
    header = split(source_of(row, ()))[0]
    fields = first_headers(parse_message(header + b"\n"))
    return [(name, modern_text(name.lower(), fields[name.lower()])) for name in SHOWN_HEADERS if name.lower() in fields]


def feed(conn: Connection, inboxes: Inboxes, inbox: str, rows, url: str, title: str, page: str = "") -> Response:
    """Atom of `rows` (id, message_id; in the feed's order), at `url`, its page `page` (the inbox's
    when none is given)."""
    message_ids = {row.id: row.message_id for row in rows}
    items = feeds.items_by_ids(conn, list(message_ids))

    def links(item) -> tuple[str, str, str]:
        page = inboxes.message_url(inbox, message_ids[item.id])
        return page, inboxes.inbox_url(inbox), page + "T/#u"

    updated = max((item.date for item in items), default=datetime(1970, 1, 1, tzinfo=UTC).replace(tzinfo=None))
    content = FeedContent(title, "", page or inboxes.inbox_url(inbox), url, url, updated, items)
    return Response(atom(content, links), 200, {"Content-Type": "application/atom+xml"})


def _html(template: str, **context) -> Response:
    return Response(render_page(template, **context), 200, HEADERS)
