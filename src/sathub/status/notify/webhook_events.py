"""What a webhook is sent: pure, no I/O.

The body of each POST is the object GET /api/v2/stream sends for the event (its `data:` line,
built by status/stream/messages.py), so an app reads a pushed event and a streamed one with the
same code."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sathub.status.stream.messages import messages


@dataclass(frozen=True)
class Payload:
    """One event as a hook is sent it."""

    event_id: int
    kind: str  # the stream's event name
    name_key: str  # the satellite's API name, lower-cased
    body: bytes

    def wanted_by(self, events: frozenset[str], names: frozenset[str]) -> bool:
        """A hook subscribed to `events` (and, when it names any, to the satellites `names`) wants it."""
        return self.kind in events and (not names or self.name_key in names)


def payloads(rows: Iterable) -> list[Payload]:
    """The events of rows of status/store/events.py, as the stream would send them (cell rows
    that change nothing a client sees are left out, as the stream leaves them out)."""
    found = []
    for message in messages(rows):
        # The stream's frame is `id: …\nevent: KIND\ndata: JSON\n\n`, the JSON on one line (orjson).
        fields = dict(line.split(b": ", 1) for line in message.data.rstrip(b"\n").split(b"\n"))
        found.append(Payload(message.id, fields[b"event"].decode(), message.name_key, fields[b"data"]))
    return found
