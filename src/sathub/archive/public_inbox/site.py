"""One request's view of the inboxes: the public lists by inbox name, and the absolute links of
public-inbox's forms under the site's prefix (PREFIX). Links escape a Message-ID as public-inbox's
mid_escape does: every character but letters, digits and `-._~!$&'()*+,;=:@` as `%XX` of its
UTF-8 (a `/` is `%2F`, so a Message-ID stays one path segment)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from sathub.archive.public_inbox.names import inbox_names
from sathub.archive.public_inbox.paths import ALL
from sathub.db.engines import Row

# Under the site's prefix, beside interface A's pages at the root and the archive's /archive/.
PREFIX = "/pi/"
_MID_SAFE = "-._~!$&'()*+,;=:@"


def mid_escape(message_id: str) -> str:
    return quote(message_id, safe=_MID_SAFE)


@dataclass
class Inboxes:
    """The public lists as inboxes: `base` is the absolute URL of PREFIX."""

    base: str
    names: dict[str, str]  # inbox name -> list address
    ids: dict[str, int]  # list address -> mailing_lists.id

    @classmethod
    def of(cls, base: str, lists: Sequence[Row], renames: dict[str, str]) -> Inboxes:
        names = inbox_names((row.name for row in lists), renames)
        return cls(base, names, {row.name: row.id for row in lists})

    def name_of(self, list_id: int) -> str:
        address = next(address for address, known in self.ids.items() if known == list_id)
        return next(name for name, named in self.names.items() if named == address)

    def list_ids(self, inbox: str) -> list[int] | None:
        """The lists an inbox name stands for (`all`: every public list); None: no such inbox."""
        if inbox == ALL:
            return list(self.ids.values())
        address = self.names.get(inbox)
        return None if address is None else [self.ids[address]]

    def inbox_url(self, inbox: str) -> str:
        return f"{self.base}{quote(inbox, safe='@')}/"

    def message_url(self, inbox: str, message_id: str, form: str = "") -> str:
        return f"{self.inbox_url(inbox)}{mid_escape(message_id)}/{form}"
