"""What a session reads from the archive, each call one connection's worth of statements and
the answer's lines ready to send (run in a worker thread: database calls never run on the event
loop). Only lists anyone may read are groups; a Message-ID of any other list is not found."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sathub.archive.mail.kept_source import source_of
from sathub.archive.nntp.articles import article_lines, split_message
from sathub.archive.nntp.groups import Group, group_name, numbers
from sathub.archive.nntp.overview import ROW_FIELDS, field_values, overview_line
from sathub.archive.store import attachments, newsgroups, overviews
from sathub.db.engines import Engine, Row, connect


@dataclass(frozen=True, slots=True)
class Site:
    """What every session of a listener shares: the database, the name in Xref and Path, the
    most articles one OVER, HDR or their X-forms answers (the first ones of a larger range), and
    the groups renamed (list address -> group: SATHUB_NNTP_GROUP_NAMES)."""

    engine: Engine
    server: str
    max_range: int
    renames: dict[str, str] = field(default_factory=dict)

    def group_of(self, address: str) -> str:
        """The newsgroup of a list: its name in `renames`, else lore's."""
        return self.renames.get(address.lower()) or group_name(address)


def _group(site: Site, row: Row, count: int | None) -> Group:
    low, high = numbers(1 if count is None else count, row.first_article, row.last_article)
    # One line without tabs; the list's address when it has none (a client drops an empty one).
    description = " ".join((row.description or row.display_name or row.name).split())
    return Group(site.group_of(row.name), row.id, count or 0, low, high, description)


def all_groups(site: Site) -> list[Group]:
    """Every group, by name (their counts are not read: LIST and NEWGROUPS do not show them)."""
    with connect(site.engine) as conn:
        rows = newsgroups.readable_lists(conn)
    return sorted((_group(site, row, None) for row in rows), key=lambda group: group.name)


def find_group(site: Site, name: str) -> Group | None:
    """The group of that name, its count read."""
    with connect(site.engine, snapshot=True) as conn:
        for row in newsgroups.readable_lists(conn):
            if site.group_of(row.name) == name:
                return _group(site, row, newsgroups.article_count(conn, row.id))
    return None


def numbers_in(site: Site, group: Group, low: int, high: int) -> list[int]:
    with connect(site.engine) as conn:
        return newsgroups.article_numbers(conn, group.list_id, low, high)


def neighbour(site: Site, group: Group, number: int, *, after: bool) -> Row | None:
    with connect(site.engine) as conn:
        return newsgroups.neighbour(conn, group.list_id, number, after=after)


@dataclass(frozen=True, slots=True)
class Article:
    number: int
    message_id: str
    lines: list[bytes]  # of the part asked for (nntp/articles.py)


def _article(conn, site: Site, row: Row, part: str, group: str) -> Article:
    rebuilt = [] if row.data is not None else attachments.attachments_to_rebuild(conn, [row.id])[row.id]
    lines = article_lines(source_of(row, rebuilt), part, site.server, group, row.article_number)
    return Article(row.article_number, row.message_id, lines)


def article_by_number(site: Site, group: Group, number: int, part: str) -> Article | None:
    """ARTICLE, HEAD, BODY (`part`) or STAT (no lines) of the group's article `number`."""
    with connect(site.engine) as conn:
        row = newsgroups.article(conn, group.list_id, number)
        if row is None:
            return None
        if part == "STAT":
            return Article(row.article_number, row.message_id, [])
        return _article(conn, site, row, part, group.name)


def article_by_message_id(site: Site, message_id: str, part: str, current: Group | None) -> Article | None:
    """As article_by_number, for a Message-ID (angle brackets left out) on any readable list,
    the current group's copy first. Its number is the one of its group, whichever is current."""
    with connect(site.engine, snapshot=True) as conn:
        row = newsgroups.article_by_message_id(conn, message_id, current.list_id if current else None)
        if row is None:
            return None
        if part == "STAT":
            return Article(row.article_number, row.message_id, [])
        return _article(conn, site, row, part, site.group_of(newsgroups.list_name(conn, row.list_id)))


def overview_lines(site: Site, group: Group, low: int, high: int) -> list[bytes]:
    """OVER's lines of the group's articles from `low` to `high` (at most site.max_range)."""
    with connect(site.engine) as conn:
        found = overviews.overview_range(conn, group.list_id, low, high, site.max_range)
    return [overview_line(number, fields, site.server, group.name) for _, number, fields in found]


def overview_of_message_id(site: Site, message_id: str, current: Group | None) -> bytes | None:
    """OVER's line of a Message-ID, numbered 0 (RFC 3977 8.3.2)."""
    with connect(site.engine, snapshot=True) as conn:
        email = newsgroups.email_of_message_id(conn, message_id, current.list_id if current else None)
        if email is None:
            return None
        found = overviews.overview_of_email(conn, email.id)
        group = site.group_of(newsgroups.list_name(conn, email.list_id))
    return overview_line(found.article_number, found.fields, site.server, group, by_message_id=True)


def _header_value(source: bytes, field: str) -> str:
    """A header field's value in a source, unfolded; "" when the field is absent."""
    header, _ = split_message(source)
    wanted = field.lower().encode()
    value: list[bytes] | None = None
    for line in header:
        if line[:1] in (b" ", b"\t"):
            if value is not None:
                value.append(line.strip())
            continue
        if value is not None:
            break
        name, colon, rest = line.partition(b":")
        if colon and name.strip().lower() == wanted:
            value = [rest.strip()]
    text = b" ".join(value or []).decode("utf-8", "surrogateescape")
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def header_lines(site: Site, group: Group, field: str, low: int, high: int) -> list[bytes]:
    """HDR's lines (`number value`) of a field for the group's articles from `low` to `high`."""
    name = field.lower()
    with connect(site.engine) as conn:
        if name in ROW_FIELDS:
            found = overviews.overview_range(conn, group.list_id, low, high, site.max_range)
            values = [
                (number, field_values(number, fields, site.server, group.name)[name]) for _, number, fields in found
            ]
        else:
            rows = newsgroups.articles(conn, group.list_id, low, high, site.max_range)
            rebuilt = attachments.attachments_to_rebuild(conn, [row.id for row in rows if row.data is None])
            values = [
                (row.article_number, _header_value(source_of(row, rebuilt.get(row.id, [])), name)) for row in rows
            ]
    return [f"{number} {value}".encode("utf-8", "surrogateescape") for number, value in values]


def header_of_message_id(site: Site, field: str, message_id: str, current: Group | None) -> bytes | None:
    """HDR's line of a field of a Message-ID's article, numbered 0."""
    name = field.lower()
    with connect(site.engine, snapshot=True) as conn:
        row = newsgroups.article_by_message_id(conn, message_id, current.list_id if current else None)
        if row is None:
            return None
        group = site.group_of(newsgroups.list_name(conn, row.list_id))
        if name in ROW_FIELDS:
            found = overviews.overview_of_email(conn, row.id)
            value = field_values(found.article_number, found.fields, site.server, group)[name]
        else:
            rebuilt = [] if row.data is not None else attachments.attachments_to_rebuild(conn, [row.id])[row.id]
            value = _header_value(source_of(row, rebuilt), name)
    return f"0 {value}".encode("utf-8", "surrogateescape")


def new_groups(site: Site, since: datetime) -> list[Group]:
    """The groups whose lists were created at `since` or later."""
    with connect(site.engine) as conn:
        rows = newsgroups.readable_lists(conn)
    return sorted((_group(site, row, None) for row in rows if row.created_at >= since), key=lambda group: group.name)


def new_message_ids(site: Site, groups: list[Group], since: datetime) -> list[str]:
    with connect(site.engine) as conn:
        return newsgroups.new_message_ids(conn, [group.list_id for group in groups], since)
