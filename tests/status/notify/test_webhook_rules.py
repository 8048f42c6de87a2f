"""The webhooks' rules (notify/webhook_rules.py): GitHub's signature, the addresses refused by
default (by their RFCs' ranges), what may be registered, and the retry schedule README.md states."""

from __future__ import annotations

import pytest

from sathub.status.notify.webhook_rules import is_public, registration_refusal, retry_delay, signature, url_refusal


def test_the_signature_is_githubs():
    # GitHub's documented example ("Validating webhook deliveries"): this secret and payload give this header.
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert signature("It's a Secret to Everybody", b"Hello, World!") == expected


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",  # loopback (RFC 1122)
        "10.1.2.3",  # private (RFC 1918)
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # link-local (RFC 3927): cloud metadata services
        "100.64.0.1",  # shared address space (RFC 6598)
        "0.0.0.0",
        "224.0.0.1",  # multicast
        "192.0.2.1",  # documentation (RFC 5737)
        "::1",
        "fe80::1%eth0",  # link-local, with a zone
        "fc00::1",  # unique local (RFC 4193)
        "::ffff:127.0.0.1",  # IPv4-mapped loopback
        "::ffff:10.0.0.1",
    ],
)
def test_non_public_addresses_are_refused(address):
    assert not is_public(address)


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address):
    assert is_public(address)


@pytest.mark.parametrize(
    "url, refused",
    [
        ("https://example.org/hook", None),
        ("http://example.org:8080/hook?x=1", None),
        ("ftp://example.org/", "only http:// and https:// URLs with a host name"),
        ("file:///etc/passwd", "only http:// and https:// URLs with a host name"),
        ("https:///nohost", "only http:// and https:// URLs with a host name"),
        ("http://example.org:99999/", "the URL is not one"),
        ("https://user:secret@example.org/", "no user name or password in the URL (the secret signs each request)"),
        ("https://example.org/" + "a" * 2048, "the URL must be at most 2048 characters"),
    ],
)
def test_only_http_and_https_urls_with_a_host_and_no_credentials(url, refused):
    assert url_refusal(url) == refused


def test_a_registration_needs_a_long_enough_secret_and_known_events():
    assert registration_refusal("https://example.org/", "x" * 16, {"report", "status"}) is None
    assert (
        registration_refusal("https://example.org/", "x" * 15, {"report"}) == "the secret must be 16 to 255 characters"
    )
    assert (
        registration_refusal("https://example.org/", "x" * 256, {"report"}) == "the secret must be 16 to 255 characters"
    )
    for events in (set(), {"report", "mail"}):
        refusal = registration_refusal("https://example.org/", "x" * 16, events)
        assert refusal == "the events must be one or more of report, status"


def test_retries_wait_10_s_then_twice_as_long_each_time_at_most_an_hour():
    delays = [retry_delay(failures, 10.0, 3600.0) for failures in range(1, 12)]
    assert delays == [10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600]
    assert retry_delay(10_000, 10.0, 3600.0) == 3600
