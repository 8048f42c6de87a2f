"""Newsgroup names (lore's: the list's domain reversed, then its local part:
`python-committers@python.org` is `org.python.python-committers`) and the lines that describe a
group. Pure."""

from __future__ import annotations

from dataclasses import dataclass


def group_name(address: str) -> str:
    """The newsgroup of a list's posting address."""
    local, _, domain = address.lower().rpartition("@")
    return ".".join([*reversed(domain.split(".")), local]) if local else domain


@dataclass(frozen=True, slots=True)
class Group:
    """A public list as a newsgroup: its numbers (RFC 3977 6.1.1: an empty group's high water
    mark is one below its low), and its list's row id and description."""

    name: str
    list_id: int
    count: int
    low: int
    high: int
    description: str

    def active_line(self) -> str:
        """LIST ACTIVE's and NEWGROUPS' line: `n`, no posting."""
        return f"{self.name} {self.high} {self.low} n"

    def group_reply(self) -> str:
        """GROUP's and LISTGROUP's first line."""
        return f"211 {self.count} {self.low} {self.high} {self.name}"


def numbers(count: int, first: int | None, last_given: int) -> tuple[int, int]:
    """(low, high) of a group with `count` articles, the lowest `first` (None: none), the list
    having given numbers up to `last_given`: an empty group's low is the next number it will give."""
    if not count or first is None:
        return last_given + 1, last_given
    return first, last_given
