"""thread_tree (pure): a thread's emails in thread order nested by their parents, nesting capped at
MAX_DEPTH, and the markup between messages balanced whatever the shape."""

from __future__ import annotations

import re
from types import SimpleNamespace

from sathub.archive.pages.thread_tree import MAX_DEPTH, layout, nest


def email(name: str, parent: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(message_id_hash=name, parent_hash=parent)


def shape(nodes) -> list:
    """[(name, depth, answers, [replies…]), …] of a tree, for comparing whole trees."""
    return [(n.email.message_id_hash, n.depth, n.answers, shape(n.replies)) for n in nodes]


def test_replies_nest_under_their_parents_in_thread_order():
    # A ← C, A ← B, B ← D, and E a second reply to A after B's branch (pre-order: A C B D E).
    tree = nest([email("A"), email("C", "A"), email("B", "A"), email("D", "B"), email("E", "A")])
    assert shape(tree) == [
        ("A", 0, None, [("C", 1, None, []), ("B", 1, None, [("D", 2, None, [])]), ("E", 1, None, [])])
    ]


def test_an_email_whose_parent_is_not_on_the_page_starts_at_the_top_and_says_so():
    tree = nest([email("A"), email("X", "gone"), email("Y", "X")])
    assert shape(tree) == [("A", 0, None, []), ("X", 0, "gone", [("Y", 1, None, [])])]


def test_nesting_stops_at_max_depth_and_deeper_replies_sit_beside_their_parent():
    chain = [email("n0")] + [email(f"n{i}", f"n{i - 1}") for i in range(1, MAX_DEPTH + 4)]
    tree = nest(chain)
    depths, node = [], tree[0]
    while node.replies:
        depths.append(len(node.replies))
        node = node.replies[0]
    # The node at MAX_DEPTH holds nothing: its reply and that reply's replies are its siblings.
    assert node.depth == MAX_DEPTH and node.email.message_id_hash == f"n{MAX_DEPTH}"
    assert depths == [1] * (MAX_DEPTH - 1) + [4]
    deepest = tree[0]
    for _ in range(MAX_DEPTH - 1):
        deepest = deepest.replies[0]
    assert [(n.email.message_id_hash, n.depth, n.answers) for n in deepest.replies] == [
        (f"n{MAX_DEPTH}", MAX_DEPTH, None),
        (f"n{MAX_DEPTH + 1}", MAX_DEPTH, f"n{MAX_DEPTH}"),
        (f"n{MAX_DEPTH + 2}", MAX_DEPTH, f"n{MAX_DEPTH + 1}"),
        (f"n{MAX_DEPTH + 3}", MAX_DEPTH, f"n{MAX_DEPTH + 2}"),
    ]


def test_layout_keeps_page_order_and_balances_the_markup():
    emails = [email("A"), email("C", "A"), email("B", "A"), email("D", "B"), email("E", "A"), email("F")]
    emails += [email(f"z{i}", f"z{i - 1}" if i else "F") for i in range(MAX_DEPTH + 3)]
    placed = layout(nest(emails))
    assert [node.email.message_id_hash for node, _after in placed] == [e.message_id_hash for e in emails]
    markup = "".join("<li>" + after for _node, after in placed)
    assert markup.count("<ol") == markup.count("</ol>") and markup.count("<li>") == markup.count("</li>")
    depth = 0
    for tag in re.findall(r"</?ol|</?li>", markup):  # never closes what is not open
        depth += 1 if not tag.startswith("</") else -1
        assert depth >= 0
