"""public-inbox's thread of a message (pure): PublicInbox::Over::get_thread answers the messages
of the message's References thread (`tid`) **or** of its normalised subject (`sid`), so a reply
that lost its References, or a new post under the same subject, is in the thread too.

sathub keeps HyperKitty's thread (a message's parent is In-Reply-To, else the last of its
References: mail/ and store/rethreading.py), which stands here for public-inbox's `tid`; where
the two differ (public-inbox also joins threads through every References entry and through
messages it never received) is written down in docs/public-inbox.md. The subject is normalised
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


def same_thread(message: Any, candidates: Iterable[Any]) -> list[Any]:
    """The candidates (rows with id, thread_id and subject) in public-inbox's thread of `message`:
    itself, its HyperKitty thread, and its normalised subject."""
    key = subject_key(message.subject)
    return [
        row
        for row in candidates
        if row.id == message.id
        or (row.thread_id is not None and row.thread_id == message.thread_id)
        or (key is not None and subject_key(row.subject) == key)
    ]
