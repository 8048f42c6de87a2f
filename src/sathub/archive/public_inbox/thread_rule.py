"""public-inbox's thread of a message (pure): PublicInbox::Over::get_thread answers the messages
of the message's References thread (`tid`) **or** of its normalised subject (`sid`), so a reply
that lost its References, or a new post under the same subject, is in the thread too.

public-inbox's `tid` joins every message naming a Message-ID in References or In-Reply-To, and
messages it never received (store/public_inbox.py's references_thread, from the email_references
of migration 0029), where HyperKitty's thread (the HyperKitty API's) follows one parent each
(docs/public-inbox.md, "Two thread rules"). The subject is normalised
as public-inbox 1.9's SearchIdx does (Smsg::subject_normalized, then OverIdx::subject_path):
spaces trimmed and folded, trailing dots and one `Re: ` dropped, every run of characters other
than word characters, `.`, `~`, `/` and `-` made one `_`, lower case. An empty subject has none."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_SPACES = re.compile(r"\s+")
_TRAILING_DOTS = re.compile(r"\.+\Z")
_REPLY = re.compile(r"\Are:\s+", re.I)
_PATH_UNSAFE = re.compile(r"[^\w.~/\-]+")
_WORD = re.compile(r"\w+")
_TAGS = re.compile(r"\[[^\]]*\]")


def subject_key(subject: str | None) -> str | None:
    """The subject as public-inbox compares it (the module's docstring says how); None for none."""
    if not subject:
        return None
    text = _SPACES.sub(" ", subject.strip())
    text = _REPLY.sub("", _TRAILING_DOTS.sub("", text), count=1)
    return _PATH_UNSAFE.sub("_", text).lower()


def searched_word(subject: str | None) -> str | None:
    """The longest word of the subject outside `[…]` tags (else inside them): every subject of the
    same key holds it, so the database is asked for the emails that hold it and the key decides.
    A list's `[name]` tag is on every message, so a word outside tags is asked first (None: a
    subject without words)."""
    words = _WORD.findall(_TAGS.sub(" ", subject or "")) or _WORD.findall(subject or "")
    return max(words, key=len) if words else None


def same_thread(message: Any, referenced: Iterable[Any], candidates: Iterable[Any]) -> list[Any]:
    """public-inbox's thread of `message` (rows with id and subject), in arrival order: the emails
    of its References thread (`referenced`), and those of `candidates` with its normalised subject."""
    key = subject_key(message.subject)
    thread = {row.id: row for row in referenced}
    if key is not None:
        thread.update((row.id, row) for row in candidates if subject_key(row.subject) == key)
    return sorted(thread.values(), key=lambda row: row.id)
