"""Debian's chromium, driven by playwright, for the tests that look at pages in a real browser
(conftest's `browser` fixture). The browser is the system's /usr/bin/chromium (`make chromium`),
never one fetched by `playwright install`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


@contextlib.contextmanager
def chromium() -> Iterator:
    """A headless chromium (playwright's Browser). Skips the test where chromium or playwright is
    missing, which fails it under CI=true (conftest)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
