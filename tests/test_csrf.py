"""The CSRF rules (sathub/csrf.py): which requests are foreign, and tokens that are bound and
expire."""

import pytest

from sathub import csrf


@pytest.mark.parametrize(
    "headers, foreign",
    [
        ({}, False),
        ({"sec-fetch-site": "none"}, False),
        ({"sec-fetch-site": "same-site", "origin": "https://amsat.org"}, False),
        ({"sec-fetch-site": "cross-site"}, True),
        ({"origin": "https://www.amsat.org"}, False),
        ({"origin": "https://evil.example"}, True),
        ({"referer": "https://evil.example/page"}, True),
        ({"referer": "https://www.amsat.org/status/"}, False),
    ],
)
def test_foreign_request_rule(headers, foreign):
    asked = []

    def own() -> set[str]:
        asked.append(True)
        return {"https://www.amsat.org"}

    assert csrf.is_foreign(headers, own) is foreign
    # The deployment's origins are worked out only when an Origin or a Referer is compared.
    assert bool(asked) == ("sec-fetch-site" not in headers and bool(headers))


def test_tokens_are_bound_and_expire():
    token = csrf.make_token("s", "10.0.0.1", now=1000)
    assert csrf.token_is_valid("s", "10.0.0.1", token, now=1000 + 60)
    assert not csrf.token_is_valid("s", "10.0.0.2", token, now=1060)
    assert not csrf.token_is_valid("t", "10.0.0.1", token, now=1060)
    assert not csrf.token_is_valid("s", "10.0.0.1", token, now=1000 + csrf.TOKEN_LIFETIME + 1)
    assert not csrf.token_is_valid("s", "10.0.0.1", "garbage")


@pytest.mark.parametrize("issued", ["9" * 5000, "\u00b2\u00b3", "-5", "1e3", ""])
def test_a_token_time_other_than_ascii_digits_is_refused_not_a_crash(issued):
    # str.isdigit() took "²³", and int() refuses 4,301 digits and more (issue 23).
    assert not csrf.token_is_valid("s", "10.0.0.1", f"{issued}.0123456789abcdef0123456789abcdef")
