"""The legacy form's abuse limit (status/rate_limit.py; docs/pages.md "Rate limit"): fixed
one-minute windows per client address, a limit of 0 turns it off, over the limit a Retry-After of
the seconds until the window resets."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sathub.status import rate_limit
from sathub.status.tables import rate_limits

instants = st.floats(min_value=0, max_value=4e9, allow_nan=False)


@given(instants)
def test_windows_are_fixed_minutes(now):
    start = rate_limit.window_start(now)
    assert start % 60 == 0 and start <= now < start + 60


@pytest.mark.parametrize("now, start", [(0, 0), (59.999, 0), (60, 60), (1_700_000_000.5, 1_699_999_980)])
def test_window_examples(now, start):
    assert rate_limit.window_start(now) == start


@pytest.mark.parametrize("hits, allowed", [(1, True), (29, True), (30, True), (31, False), (1000, False)])
def test_a_limit_of_30_allows_30_a_minute(hits, allowed):
    now = 1_700_000_000.0
    verdict = rate_limit.judge(hits, 30, rate_limit.window_start(now), now)
    assert verdict.allowed is allowed
    assert (verdict.retry_after == 0) is allowed


@pytest.mark.parametrize("limit", [0, -1])
def test_no_limit(limit):
    assert rate_limit.judge(10**6, limit, 0, 30) == rate_limit.Verdict(True, 0)


@given(instants)
def test_retry_after_is_the_seconds_until_the_window_resets(now):
    start = rate_limit.window_start(now)
    verdict = rate_limit.judge(31, 30, start, now)
    assert not verdict.allowed
    # whole seconds, rounded up so that a client waiting that long finds the next window, at least 1
    assert verdict.retry_after == max(1, math.ceil(start + 60 - now))
    assert 1 <= verdict.retry_after <= 60


@pytest.mark.parametrize("now, retry_after", [(1_699_999_980.0, 60), (1_700_000_020.3, 20), (1_700_000_039.9, 1)])
def test_retry_after_examples(now, retry_after):
    assert rate_limit.judge(2, 1, 1_699_999_980, now).retry_after == retry_after


def test_a_client_key_per_purpose_and_address_fits_its_column():
    assert rate_limit.client_key("submit", "192.0.2.7") != rate_limit.client_key("login", "192.0.2.7")
    assert rate_limit.client_key("submit", "192.0.2.7") != rate_limit.client_key("submit", "192.0.2.8")
    assert rate_limit.client_key("submit", "2001:db8::1").endswith("2001:db8::1")
    longest = rate_limit.client_key("submit", "x" * 500)
    assert len(longest) == rate_limits.c.client.type.length == 128
