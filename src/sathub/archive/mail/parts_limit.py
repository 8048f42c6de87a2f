"""How much of a message's MIME tree is parsed: at most `max_parts` parts (SATHUB_MAX_MESSAGE_PARTS;
the message itself is one, so is each part of an attached message), nested at most MAX_DEPTH
levels below the message. The parser stops at the first part beyond either bound: that part and
everything after it stay in the message's kept source (mail/kept_source.py), neither text nor
attachments (docs/archive-import.md, "Messages of many parts"). Pure.

Python's parser takes about 40 µs a part, and deriving a part's text or attachment 60 more, so the
parts bound that time and memory (25 MiB, the archiver's body limit, holds some 300,000 tiny
parts: half a minute). The depth bounds the parser's time per line, which grows with every
enclosing multipart whose boundary each line is tested against (1 million lines: 1.2 s at depth
1, 8.1 s at depth 50); and a thousand levels took it past the interpreter's recursion limit, a
message that could not be archived at all ("cannot be decoded": Mailman's plugin would send it
again for ever)."""

from __future__ import annotations

from email.errors import MessageDefect
from email.message import Message
from email.parser import BytesParser
from email.policy import Policy

# Mail clients nest a handful of levels (mixed > alternative > related > a part); each message
# forwarded as an attachment adds two.
MAX_DEPTH = 32


class PartsLeftOut(MessageDefect):
    """The parser stopped at a part beyond the limits: the rest of the message is in its source only."""


class _Enough(Exception):
    """Stops the parser from inside (its message factory, or a part's attach)."""


class _Part(Message):
    """A part that knows how deep it is, so that attaching one nested too deep stops the parser
    (which builds the tree with `attach`)."""

    depth = 0

    def attach(self, payload) -> None:
        if self.depth == MAX_DEPTH:
            raise _Enough
        if isinstance(payload, _Part):
            payload.depth = self.depth + 1
        super().attach(payload)


class _PartCounter:
    """The message factory of one parse: a new part while fewer than `max_parts` were made."""

    def __init__(self, max_parts: int) -> None:
        self.left = max_parts
        self.first: _Part | None = None

    def new_part(self, policy: Policy) -> _Part:
        if not self.left:
            raise _Enough
        self.left -= 1
        part = _Part(policy)
        if self.first is None:
            self.first = part
        return part


def parse_within_limits(data: bytes, policy: Policy, max_parts: int) -> Message:
    """The message of `data` parsed under `policy`, as far as the limits allow; a message cut short
    has a PartsLeftOut among its defects."""
    counter = _PartCounter(max_parts)
    try:
        return BytesParser(policy=policy.clone(message_factory=counter.new_part)).parsebytes(data)
    except _Enough:
        assert counter.first is not None  # the message itself is made before any limit is met
        counter.first.defects.append(PartsLeftOut())
        return counter.first
    finally:
        counter.first = None  # the message refers to its factory through its policy: no cycle back
