"""The budget rule's arithmetic (archive/budgets/rule.py): a budget of N a minute is a token bucket
holding N, one token back every 60/N seconds; the numbers here are worked by hand from that."""

from sathub.archive.budgets.rule import Budget


def test_a_request_costs_a_minute_divided_by_the_budget():
    assert Budget("search", 60).interval_ms == 1_000
    assert Budget("search", 7).interval_ms == 8_572  # 60,000 / 7 = 8,571.4…, rounded up


def test_a_full_bucket_holds_a_minutes_worth():
    budget, now = Budget("search", 60), 1_000_000
    # The 60th request of a burst starts from due = now + 59 s, the latest from which one fits.
    assert budget.latest_start(now) == now + 59_000


def test_retry_after_is_the_wait_for_the_next_token_in_whole_seconds():
    budget, now = Budget("export", 6), 1_000_000  # a token every 10 s
    # The bucket is empty (due a minute ahead): the next token is 10 s away.
    assert budget.retry_after(now + 60_000, now) == 10
    assert budget.retry_after(now + 60_000, now + 2_500) == 8  # 7.5 s, rounded up
    assert budget.retry_after(now + 50_001, now) == 1  # never 0: 0 would invite an instant retry


def test_each_budget_has_its_own_row_per_address():
    assert Budget("search", 1).client_key("192.0.2.1") == "search:192.0.2.1"
    assert Budget("export", 1).client_key("192.0.2.1") == "export:192.0.2.1"
    assert len(Budget("search", 1).client_key("x" * 300)) == 128  # the column's width
