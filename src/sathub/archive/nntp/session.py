"""One NNTP connection's commands and answers (RFC 3977's reader commands, RFC 2980's XOVER and
XHDR), with its state: the selected group and the current article number. Read-only: POST and
IHAVE answer 440. Each command's reads run in a worker thread (nntp/reads.py); what a command
answers is one bytes value, its lines CRLF-ended and its blocks dot-stuffed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from sathub.archive.mail.dates import utc_now
from sathub.archive.nntp import reads
from sathub.archive.nntp.articles import block
from sathub.archive.nntp.groups import Group
from sathub.archive.nntp.overview import OVERVIEW_FORMAT, ROW_FIELDS
from sathub.archive.nntp.ranges import parse_range
from sathub.archive.nntp.wildmat import BadWildmat, matches
from sathub.db.engines import DatabaseUnavailable

log = logging.getLogger("sathub.archive.nntp")

GREETING = b"201 sathub archive NNTP service ready (no posting)\r\n"
CAPABILITIES = [
    b"VERSION 2",
    b"READER",
    b"HDR",
    b"OVER MSGID",
    b"NEWNEWS",
    b"LIST ACTIVE NEWSGROUPS OVERVIEW.FMT HEADERS",
    b"IMPLEMENTATION sathub",
]
HELP = [
    b"ARTICLE|HEAD|BODY|STAT [message-id|number]",
    b"CAPABILITIES",
    b"DATE",
    b"GROUP newsgroup",
    b"HDR|XHDR field [message-id|range]",
    b"HELP",
    b"LAST",
    b"LIST [ACTIVE|NEWSGROUPS [wildmat]] | LIST OVERVIEW.FMT | LIST HEADERS [MSGID|RANGE]",
    b"LISTGROUP [newsgroup [range]]",
    b"MODE READER",
    b"NEWGROUPS yyyymmdd hhmmss [GMT]",
    b"NEWNEWS wildmat yyyymmdd hhmmss [GMT]",
    b"NEXT",
    b"OVER|XOVER [message-id|range]",
    b"QUIT",
]
# What HDR answers, as LIST HEADERS names it: any field (":"), read from the rows or the sources.
HEADERS = [b":", *(name.encode() for name in ROW_FIELDS if name.startswith(":"))]
PARTS = {"ARTICLE": 220, "HEAD": 221, "BODY": 222, "STAT": 223}


class Refused(Exception):
    """A command answered with an error line (its code and text)."""


def _line(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape") + b"\r\n"


def _multi(first: str, lines: list[bytes]) -> bytes:
    return _line(first) + block(lines)


def _message_id(word: str) -> str | None:
    """The Message-ID of an argument `<…>` (RFC 3977 3.6), without its brackets; None: a number."""
    if not word.startswith("<"):
        return None
    if not word.endswith(">") or len(word) < 3 or len(word) > 250:
        raise Refused("501 Not a message-id")
    return word[1:-1]


def _date(words: list[str]) -> datetime:
    """NEWGROUPS' and NEWNEWS' `yyyymmdd hhmmss [GMT]` (or `yymmdd`: the nearest century that
    is not in the future, RFC 3977 7.3.2), read as UTC."""
    if len(words) not in (2, 3) or (len(words) == 3 and words[2].upper() != "GMT"):
        raise Refused("501 Expected a date, a time and maybe GMT")
    day, time = words[0], words[1]
    if len(day) == 6 and day.isdigit():
        year = 2000 + int(day[:2])
        day = str(year if year <= utc_now().year else year - 100) + day[2:]
    if len(day) == 8 and len(time) == 6 and (day + time).isdigit():
        try:
            return datetime.strptime(day + time, "%Y%m%d%H%M%S")
        except ValueError:
            pass
    raise Refused("501 Expected a date, a time and maybe GMT")


class Session:
    """A connection's state and its answers to commands."""

    def __init__(self, site: reads.Site) -> None:
        self.site = site
        self.group: Group | None = None
        self.current: int | None = None  # the current article number; None: invalid
        self.closing = False

    async def answer(self, line: bytes) -> bytes:
        """The answer to one command line (without its line end)."""
        words = line.decode("utf-8", "surrogateescape").split()
        if not words:
            return _line("500 No command given")
        handler = _COMMANDS.get(words[0].upper())
        if handler is None:
            return _line(f"500 Unknown command {words[0][:32]!r}")
        try:
            return await handler(self, words[1:])
        except Refused as refused:
            return _line(str(refused))
        except BadWildmat:
            return _line("501 Not a wildmat")
        except DatabaseUnavailable:
            return _line("403 The archive is unavailable; try again later")
        except Exception:  # answered, never a connection dropped without a word (RFC 3977 3.2.1)
            log.exception("NNTP command %s failed", words[0][:32])
            return _line("403 The archive failed to answer")

    def _read(self, function: Callable, *args, **keywords) -> Awaitable:
        return asyncio.to_thread(function, self.site, *args, **keywords)

    def _selected(self) -> Group:
        if self.group is None:
            raise Refused("412 No newsgroup selected")
        return self.group

    def _current(self) -> int:
        self._selected()
        if self.current is None:
            raise Refused("420 Current article number is invalid")
        return self.current

    def _range(self, words: list[str]) -> tuple[int, int]:
        """The range of a command's argument: the current article when there is none."""
        if not words:
            number = self._current()
            return number, number
        self._selected()
        found = parse_range(words[0])
        if found is None:
            raise Refused("501 Not a range")
        return found

    async def capabilities(self, words: list[str]) -> bytes:
        return _multi("101 Capability list:", CAPABILITIES)

    async def mode(self, words: list[str]) -> bytes:
        if [word.upper() for word in words] != ["READER"]:
            raise Refused("501 Only MODE READER")
        return _line("201 Reader mode, posting prohibited")

    async def date(self, words: list[str]) -> bytes:
        return _line("111 " + datetime.now(UTC).strftime("%Y%m%d%H%M%S"))

    async def help(self, words: list[str]) -> bytes:
        return _multi("100 Help text follows", HELP)

    async def quit(self, words: list[str]) -> bytes:
        self.closing = True
        return _line("205 Bye")

    async def refuse_posting(self, words: list[str]) -> bytes:
        return _line("440 Posting not permitted: this archive is read-only")

    async def list_command(self, words: list[str]) -> bytes:
        keyword = words[0].upper() if words else "ACTIVE"
        if keyword in ("ACTIVE", "NEWSGROUPS") and len(words) <= 2:
            wildmat = words[1] if len(words) == 2 else "*"
            groups = [group for group in await self._read(reads.all_groups) if matches(wildmat, group.name)]
            if keyword == "ACTIVE":
                return _multi("215 List of newsgroups follows", [group.active_line().encode() for group in groups])
            described = [f"{group.name}\t{group.description}".encode() for group in groups]
            return _multi("215 Descriptions follow", described)
        if keyword == "OVERVIEW.FMT" and len(words) == 1:
            return _multi("215 Order of fields in overview database", [name.encode() for name in OVERVIEW_FORMAT])
        if keyword == "HEADERS" and len(words) <= 2 and words[1:] in ([], ["MSGID"], ["RANGE"]):
            return _multi("215 Headers and metadata items supported", HEADERS)
        raise Refused("501 Unknown LIST keyword or bad arguments")

    async def _select(self, name: str) -> Group:
        group = await self._read(reads.find_group, name)
        if group is None:
            raise Refused("411 No such newsgroup")
        self.group, self.current = group, (group.low if group.count else None)
        return group

    async def group_command(self, words: list[str]) -> bytes:
        if len(words) != 1:
            raise Refused("501 GROUP takes a newsgroup")
        return _line((await self._select(words[0])).group_reply())

    async def listgroup(self, words: list[str]) -> bytes:
        if len(words) > 2:
            raise Refused("501 LISTGROUP takes a newsgroup and a range")
        group = await self._select(words[0]) if words else self._selected()
        self.current = group.low if group.count else None
        low, high = (group.low, group.high) if len(words) < 2 else (parse_range(words[1]) or (None, None))
        if low is None or high is None:
            raise Refused("501 Not a range")
        found = await self._read(reads.numbers_in, group, low, high) if group.count else []
        return _multi(group.group_reply() + " list follows", [str(number).encode() for number in found])

    async def _step(self, after: bool) -> bytes:
        number = self._current()
        found = await self._read(reads.neighbour, self._selected(), number, after=after)
        if found is None:
            raise Refused("421 No next article" if after else "422 No previous article")
        self.current = found.article_number
        return _line(f"223 {found.article_number} <{found.message_id}> selected")

    async def next(self, words: list[str]) -> bytes:
        return await self._step(after=True)

    async def last(self, words: list[str]) -> bytes:
        return await self._step(after=False)

    async def _part(self, part: str, words: list[str]) -> bytes:
        if len(words) > 1:
            raise Refused(f"501 {part} takes a message-id or a number")
        message_id = _message_id(words[0]) if words else None
        if message_id is not None:
            found = await self._read(reads.article_by_message_id, message_id, part, self.group)
            if found is None:
                raise Refused("430 No article with that message-id")
            number = 0  # RFC 3977 6.2.1.3: the message-id form answers 0, and moves nothing
        else:
            if words and not words[0].isdigit():
                raise Refused("501 Not a message-id or an article number")
            number = int(words[0]) if words else self._current()
            found = await self._read(reads.article_by_number, self._selected(), number, part)
            if found is None:
                raise Refused("423 No article with that number" if words else "420 Current article number is invalid")
            self.current = number
        first = f"{PARTS[part]} {number} <{found.message_id}>"
        return _line(first) if part == "STAT" else _multi(first, found.lines)

    async def article(self, words: list[str]) -> bytes:
        return await self._part("ARTICLE", words)

    async def head(self, words: list[str]) -> bytes:
        return await self._part("HEAD", words)

    async def body(self, words: list[str]) -> bytes:
        return await self._part("BODY", words)

    async def stat(self, words: list[str]) -> bytes:
        return await self._part("STAT", words)

    async def over(self, words: list[str]) -> bytes:
        if len(words) > 1:
            raise Refused("501 OVER takes a message-id or a range")
        message_id = _message_id(words[0]) if words else None
        if message_id is not None:
            found = await self._read(reads.overview_of_message_id, message_id, self.group)
            if found is None:
                raise Refused("430 No article with that message-id")
            return _multi("224 Overview information follows", [found])
        low, high = self._range(words)
        lines = await self._read(reads.overview_lines, self._selected(), low, high)
        if not lines:
            raise Refused("423 No articles in that range" if words else "420 Current article number is invalid")
        return _multi("224 Overview information follows", lines)

    async def _headers(self, words: list[str], code: str) -> bytes:
        if not 1 <= len(words) <= 2:
            raise Refused("501 HDR takes a field and a message-id or a range")
        field, rest = words[0], words[1:]
        message_id = _message_id(rest[0]) if rest else None
        if message_id is not None:
            found = await self._read(reads.header_of_message_id, field, message_id, self.group)
            if found is None:
                raise Refused("430 No article with that message-id")
            return _multi(code, [found])
        low, high = self._range(rest)
        lines = await self._read(reads.header_lines, self._selected(), field, low, high)
        if not lines:
            raise Refused("423 No articles in that range" if rest else "420 Current article number is invalid")
        return _multi(code, lines)

    async def hdr(self, words: list[str]) -> bytes:
        return await self._headers(words, "225 Headers follow")

    async def xhdr(self, words: list[str]) -> bytes:
        return await self._headers(words, "221 Header follows")  # RFC 2980 2.6

    async def newgroups(self, words: list[str]) -> bytes:
        since = _date(words)
        groups = await self._read(reads.new_groups, since)
        return _multi("231 List of new newsgroups follows", [group.active_line().encode() for group in groups])

    async def newnews(self, words: list[str]) -> bytes:
        if not words:
            raise Refused("501 NEWNEWS takes a wildmat, a date and a time")
        wildmat, since = words[0], _date(words[1:])
        groups = [group for group in await self._read(reads.all_groups) if matches(wildmat, group.name)]
        found = await self._read(reads.new_message_ids, groups, since)
        return _multi("230 List of new articles follows", [f"<{mid}>".encode() for mid in found])


_COMMANDS: dict[str, Callable[[Session, list[str]], Awaitable[bytes]]] = {
    "CAPABILITIES": Session.capabilities,
    "MODE": Session.mode,
    "DATE": Session.date,
    "HELP": Session.help,
    "QUIT": Session.quit,
    "POST": Session.refuse_posting,
    "IHAVE": Session.refuse_posting,
    "LIST": Session.list_command,
    "GROUP": Session.group_command,
    "LISTGROUP": Session.listgroup,
    "NEXT": Session.next,
    "LAST": Session.last,
    "ARTICLE": Session.article,
    "HEAD": Session.head,
    "BODY": Session.body,
    "STAT": Session.stat,
    "OVER": Session.over,
    "XOVER": Session.over,
    "HDR": Session.hdr,
    "XHDR": Session.xhdr,
    "NEWGROUPS": Session.newgroups,
    "NEWNEWS": Session.newnews,
}
