"""public-inbox's URL forms under the prefix (pure): the path after `/pi/`, as the client sent
it (percent-escapes still in, so that a Message-ID's `/` written `%2F` stays in its segment),
read into what it asks for. The forms, as public-inbox-httpd 1.9 answers them:

    ""                        the inboxes
    <inbox>                   301 to <inbox>/
    <inbox>/                  its newest topics (`?o=` pages)
    <inbox>/new.atom          its newest messages
    <inbox>/<mid>             301 to <inbox>/<mid>/
    <inbox>/<mid>/            the message (300 when unknown)
    <inbox>/<mid>/raw         its source as one mboxrd message (404 when unknown)
    <inbox>/<mid>/t.mbox.gz   its thread as mboxrd, gzip (404 when unknown)
    <inbox>/<mid>/t.atom      its thread, newest first
    <inbox>/<mid>/T/ , t/     its thread flat, nested (T, t: 301 to them with `#u`)
    r/<mid>                   302 to the message wherever it is (lore's redirect)
    <mid>                     302 the same way (public-inbox's own)

`<inbox>` is an inbox's name or `all` (every public list). A Message-ID is unescaped once
(`%40` is `@`, `%2B` is `+`); b4 escapes with quote_plus, which writes a space `+`, so a `+`
the archive does not know is tried again as a space (MessageId.spellings)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

ALL = "all"
MESSAGE_FORMS = frozenset(("", "raw", "t.mbox.gz", "t.atom", "T/", "t/"))
# A thread form without its slash: public-inbox redirects to the form with it, at the message.
SLASHLESS = {"T": "T/#u", "t": "t/#u"}


@dataclass(frozen=True)
class Target:
    """What a path asks for: `kind` is one of inboxes, inbox_slash, topics, new_atom,
    message_slash, message, redirect (r/<mid> and <mid>), form_slash, unknown; `form` a
    MESSAGE_FORMS entry, or SLASHLESS's key."""

    kind: str
    inbox: str | None = None
    message_id: str | None = None
    form: str = ""


def message_id_spellings(segment: str) -> list[str]:
    """The Message-IDs a path segment may name, most likely first: unescaped once, without angle
    brackets; then, when it has a `+`, with each `+` a space (quote_plus's)."""
    text = unquote(segment).strip().removeprefix("<").removesuffix(">")
    spellings = [text]
    if "+" in segment:
        spellings.append(unquote(segment.replace("+", " ")).strip().removeprefix("<").removesuffix(">"))
    return spellings


def read_path(rest: str) -> Target:
    """The Target of the path after the prefix (escaped as sent)."""
    if rest == "":
        return Target("inboxes")
    parts = rest.split("/")
    head = unquote(parts[0])
    if len(parts) == 1:
        return Target("inbox_slash", head, parts[0])  # an inbox, else a Message-ID (the door decides)
    if head == "r":
        return Target("redirect", message_id=parts[1]) if parts[1] and len(parts) <= 3 else Target("unknown")
    if len(parts) == 2:
        if parts[1] == "":
            return Target("topics", head)
        if parts[1] == "new.atom":
            return Target("new_atom", head)
        return Target("message_slash", head, parts[1])
    form = "/".join(parts[2:])
    if form in MESSAGE_FORMS:
        return Target("message", head, parts[1], form)
    if form in SLASHLESS:
        return Target("form_slash", head, parts[1], form)
    return Target("unknown", head, parts[1])
