"""RFC 3977's article ranges (section 6.1.2 for LISTGROUP, 8.3 for OVER and HDR): `n`, `n-` (n
and every later article) or `n-m`. Pure."""

from __future__ import annotations

import re

from sathub.db.dialect import MAX_INTEGER

_RANGE = re.compile(r"([0-9]{1,16})(-([0-9]{0,16}))?")


def parse_range(text: str) -> tuple[int, int] | None:
    """(low, high) of a range, `n-` running to the largest number there can be; None when the text
    is no range (501). A range whose high is below its low is valid and empty."""
    found = _RANGE.fullmatch(text)
    if found is None:
        return None
    low = min(int(found.group(1)), MAX_INTEGER)
    if found.group(2) is None:
        return low, low
    high = found.group(3)
    return low, min(int(high), MAX_INTEGER) if high else MAX_INTEGER
