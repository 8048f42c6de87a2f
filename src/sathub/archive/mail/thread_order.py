"""Threads from reply links: which email is a thread's root, and the order of its emails.
Pure functions over (id, parent_id, date, message_id_hash); the importer feeds them whole threads.

Thread order is depth-first pre-order from the root, siblings by date then arrival (id).
Reply loops (A answers B, B answers A) are cut at the member with the earliest date (then the
smallest message_id_hash), which becomes the root: a rule of the messages alone, so the result
does not depend on the order in which they were imported."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class ThreadNode:
    id: int  # arrival order
    parent_id: int | None
    date: datetime
    message_id_hash: str


@dataclass(frozen=True, slots=True)
class Placement:
    id: int
    parent_id: int | None  # None for the root (also for a loop member chosen as the root)
    order: int  # position in thread order, root = 0
    depth: int  # root = 0


@dataclass(frozen=True, slots=True)
class ArrangedThread:
    root: ThreadNode
    emails: list[Placement]  # in thread order

    @property
    def last_arrived_id(self) -> int:
        return max(placement.id for placement in self.emails)


def cut_loops(nodes: dict[int, ThreadNode]) -> dict[int, int | None]:
    """Each node's parent, with links to unknown nodes or to itself dropped and loops cut."""
    parent = {
        node.id: node.parent_id if node.parent_id in nodes and node.parent_id != node.id else None
        for node in nodes.values()
    }
    walk_of: dict[int, int] = {}  # node -> the walk that first reached it
    for start in nodes:
        if start in walk_of:
            continue
        path: list[int] = []
        current: int | None = start
        while current is not None and current not in walk_of:
            walk_of[current] = start
            path.append(current)
            current = parent[current]
        if current is not None and walk_of[current] == start:
            # Back at a node of this same walk: the path from it onwards is a loop.
            loop = path[path.index(current) :]
            root = min(loop, key=lambda i: (nodes[i].date, nodes[i].message_id_hash))
            parent[root] = None
    return parent


def arrange_threads(nodes: Iterable[ThreadNode]) -> list[ArrangedThread]:
    """The threads formed by `nodes` (every parent of a node should be among them)."""
    by_id = {node.id: node for node in nodes}
    parent = cut_loops(by_id)
    children: dict[int | None, list[int]] = defaultdict(list)
    for node_id, parent_id in parent.items():
        children[parent_id].append(node_id)
    for siblings in children.values():
        siblings.sort(key=lambda i: (by_id[i].date, i))
    threads = []
    for root_id in children[None]:
        emails: list[Placement] = []
        stack = [(root_id, 0)]
        while stack:
            node_id, depth = stack.pop()
            emails.append(Placement(node_id, parent[node_id], len(emails), depth))
            stack.extend((child, depth + 1) for child in reversed(children.get(node_id, ())))
        threads.append(ArrangedThread(by_id[root_id], emails))
    return threads
