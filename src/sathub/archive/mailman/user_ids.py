"""`sathub archive senders load`: real Mailman user ids given to senders, from (address, id) pairs."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from sathub.archive.mail.senders import usable_address
from sathub.archive.store.writes import mailman_id_owner, set_mailman_id
from sathub.db.engines import Engine


@dataclass
class MailmanIdsLoad:
    loaded: int = 0
    rejected: list[str] = field(default_factory=list)  # "line N: why"

    def describe(self) -> str:
        return "\n".join([f"{self.loaded} sender ids loaded, {len(self.rejected)} rejected", *self.rejected])


def load_mailman_ids(engine: Engine, rows: Iterable[tuple[str, str]]) -> MailmanIdsLoad:
    """Give each (address, Mailman user id) pair's sender that id, creating the sender when it has
    no mail yet. Ids may be written with dashes (Mailman's UUIDs); they are stored as 32 hex digits.
    An id already given to another address is rejected (one sender per id)."""
    result = MailmanIdsLoad()
    with engine.begin() as conn:
        for line, (address, mailman_id) in enumerate(rows, start=2):  # line 1 is the CSV header
            address = (address or "").strip().lower()
            try:
                mailman_id = uuid.UUID((mailman_id or "").strip()).hex
            except ValueError:
                result.rejected.append(f"line {line}: {mailman_id!r} is not a Mailman user id")
                continue
            if not usable_address(address):
                result.rejected.append(f"line {line}: {address!r} is not an address")
                continue
            owner = mailman_id_owner(conn, mailman_id)
            if owner is not None and owner != address:
                result.rejected.append(f"line {line}: {mailman_id} already belongs to {owner}")
                continue
            set_mailman_id(conn, address, mailman_id)
            result.loaded += 1
    return result
