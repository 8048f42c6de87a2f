"""Live mail: one message that Mailman's archiver hands over, stored by the import's own rules.

The message goes through the importer's parsing (`mail/kept_source.parsed_with_source`) and the
rules of its batch writer (`store.writes.write_batch`) for a batch of one (store/one_message.py,
in fewer statements), so ids, threading, the re-attachment of replies that arrived before their
parent, duplicates and senders are exactly those of `archive import`.
Parsing runs before the write lock is taken; storing runs in the caller's write transaction."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from sathub.archive.mail.dates import utc_now
from sathub.archive.mail.kept_source import compress, parsed_with_source
from sathub.archive.mail.message import MAX_PARTS, ParsedEmail
from sathub.archive.store import one_message
from sathub.archive.store.search_partitions import keep_ahead
from sathub.archive.tables import NEVER
from sathub.db.engines import Connection, Engine, IntegrityError, connect

log = logging.getLogger("sathub.archive.mailman")

# A message starts with a header field (RFC 5322 field name, then a colon); Mailman's
# rendering has no mbox `From ` line, but one is tolerated.
_FIRST_HEADER = re.compile(rb"(From [^\r\n]*\r?\n)?[!-9;-~]+[ \t]*:")


class UnreadableMessage(ValueError):
    """The bytes are not a mail message that can be archived; the text says why."""


@dataclass(frozen=True, slots=True)
class Stored:
    message_id_hash: str
    new: bool  # False: not stored now (a duplicate, an unknown list, a `never` list, removed mail)
    policy: str | None  # the list's archive policy; None: no such list (nothing was stored)
    removed: str | None = None  # hidden or deleted from the list (archive/removal/): never archived again


def parse(data: bytes, max_parts: int = MAX_PARTS) -> ParsedEmail:
    """The archived form of one raw message, from its first `max_parts` MIME parts (CPU only: call
    it outside the write transaction)."""
    if not data.strip():
        raise UnreadableMessage("the message is empty")
    if not _FIRST_HEADER.match(data):
        raise UnreadableMessage("the message does not start with a header field (Name: value)")
    parsed = parsed_with_source(data, None, utc_now(), max_parts)
    if isinstance(parsed, str):
        raise UnreadableMessage(f"the message {parsed}")
    if data.startswith(b"From "):  # kept as the import keeps one: the message, and its From_ line apart
        envelope, _, message = data.partition(b"\n")
        parsed.source, parsed.source_size = compress(message), len(message)
        parsed.envelope = envelope.decode("latin-1").rstrip("\r")
    return parsed


def store(conn: Connection, address: str, email: ParsedEmail) -> Stored:
    """Store one parsed message in the list of posting address `address`, in the caller's write
    transaction; nothing is stored when the list is unknown or its archive policy is `never`."""
    found = one_message.look_up(conn, address, email)
    if found is None or found.archive_policy == NEVER:
        return Stored(email.message_id_hash, False, found.archive_policy if found else None)
    if found.removed is not None:
        # Mailman retries until it gets a 200: answered stored, and said once here.
        log.info(
            "%s of %s not archived again: %s (sathub archive removals)", email.message_id_hash, address, found.removed
        )
        return Stored(email.message_id_hash, False, found.archive_policy, found.removed)
    if found.duplicate is not None:
        one_message.fill_source(conn, found.duplicate, email)  # only if it has none yet
        return Stored(email.message_id_hash, False, found.archive_policy)
    one_message.write(conn, found, email)
    return Stored(email.message_id_hash, True, found.archive_policy)


def store_alone(engine: Engine, address: str, email: ParsedEmail) -> Stored:
    """`store` in a write transaction of its own. When the same message, posted twice at once,
    was stored by the other post first (a unique key refused this one), it is stored again: now a
    duplicate. Then the search index's next partition is made when it is due (search_partitions)."""
    try:
        with connect(engine, write=True) as conn:
            stored = store(conn, address, email)
    except IntegrityError:
        with connect(engine, write=True) as conn:
            stored = store(conn, address, email)
    keep_ahead(engine)
    return stored
