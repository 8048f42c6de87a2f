"""Thread order and loop cutting (sathub.archive.mail.thread_order): pure, no database."""

from datetime import datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from sathub.archive.mail.thread_order import ThreadNode, arrange_threads, cut_loops

T0 = datetime(2020, 1, 1)


def node(id, parent, minutes, key=None):
    return ThreadNode(id, parent, T0 + timedelta(minutes=minutes), key or f"H{id}")


def layout(threads):
    """{root id: [(id, parent, order, depth), ...]} for easy comparison."""
    return {t.root.id: [(p.id, p.parent_id, p.order, p.depth) for p in t.emails] for t in threads}


def test_depth_first_pre_order_with_siblings_by_date_then_arrival():
    nodes = [node(1, None, 0), node(2, 1, 30), node(3, 1, 10), node(4, 3, 40), node(5, 1, 10), node(6, 2, 31)]
    assert layout(arrange_threads(nodes)) == {
        1: [(1, None, 0, 0), (3, 1, 1, 1), (4, 3, 2, 2), (5, 1, 3, 1), (2, 1, 4, 1), (6, 2, 5, 2)]
    }


def test_separate_trees_are_separate_threads():
    threads = arrange_threads([node(1, None, 0), node(2, None, 5), node(3, 2, 6), node(4, 99, 1)])
    assert layout(threads) == {1: [(1, None, 0, 0)], 2: [(2, None, 0, 0), (3, 2, 1, 1)], 4: [(4, None, 0, 0)]}
    assert {t.root.id: t.last_arrived_id for t in threads} == {1: 1, 2: 3, 4: 4}


def test_a_loop_is_cut_at_its_earliest_member():
    # 1 -> 2 -> 3 -> 1 (each answers the next), 4 answers 2; 2 is the earliest of the loop.
    nodes = [node(1, 3, 20), node(2, 1, 5), node(3, 2, 10), node(4, 2, 30)]
    assert layout(arrange_threads(nodes)) == {2: [(2, None, 0, 0), (3, 2, 1, 1), (1, 3, 2, 2), (4, 2, 3, 1)]}


def test_a_loop_of_equal_dates_is_cut_by_hash_not_by_arrival():
    nodes = [node(1, 2, 0, "ZZZ"), node(2, 1, 0, "AAA")]
    assert layout(arrange_threads(nodes)) == {2: [(2, None, 0, 0), (1, 2, 1, 1)]}


def test_self_reply_and_unknown_parent_make_roots():
    assert cut_loops({1: node(1, 1, 0), 2: node(2, 7, 0)}) == {1: None, 2: None}


def test_a_tail_into_a_loop_stays_attached():
    # 5 -> 4 -> 1 <-> 2 : the loop {1, 2} is cut at 1 (earlier); 4 and 5 hang below.
    parents = cut_loops({n.id: n for n in [node(1, 2, 0), node(2, 1, 1), node(4, 1, 2), node(5, 4, 3)]})
    assert parents == {1: None, 2: 1, 4: 1, 5: 4}


forests = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5)), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(forests, st.randoms(use_true_random=False))
def test_result_does_not_depend_on_input_order_and_is_a_valid_forest(links, rnd):
    nodes = [node(i, parent if parent != i else None, minutes) for i, (parent, minutes) in enumerate(links)]
    expected = layout(arrange_threads(nodes))
    shuffled = nodes[:]
    rnd.shuffle(shuffled)
    assert layout(arrange_threads(shuffled)) == expected
    placed = [p for emails in expected.values() for p in emails]
    assert sorted(p[0] for p in placed) == list(range(len(nodes)))  # every node exactly once
    for root, emails in expected.items():
        depth_of = {}
        for order, (email_id, parent, position, depth) in enumerate(emails):
            assert position == order
            assert (parent is None) == (email_id == root)
            if parent is not None:
                assert depth == depth_of[parent] + 1  # a parent comes before its replies
            depth_of[email_id] = depth


def test_a_very_deep_thread_needs_no_recursion():
    nodes = [node(0, None, 0)] + [node(i, i - 1, i) for i in range(1, 20_000)]
    (thread,) = arrange_threads(reversed(nodes))
    assert [(p.id, p.depth) for p in thread.emails[-2:]] == [(19_998, 19_998), (19_999, 19_999)]
