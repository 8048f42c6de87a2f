"""The pages to browse in Chromium, without JavaScript, on a phone's width (390 px) and a desktop's:
from the index of lists to a list, a month, a thread with nested replies and a feed; landmarks,
headings and labels as a screen reader meets them; nothing wider than the screen. Screenshots go
to docs/screenshots/ under SATHUB_SCREENSHOTS=1 (make screenshots)."""

from __future__ import annotations

import pytest

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.mailman import live_ingest
from sathub.archive.store import lists
from tests.archive.api_fixtures import MAIL, seed_archive
from tests.archive.messages import raw_message
from tests.live_server import app_in_thread

DEV = "dev@example.org"
PHONE = {"width": 390, "height": 844}
LONG_LINE = "A line of a pasted log that no phone is wide enough for: " + "x" * 160

# A discussion with quoting, a long unbroken line and a reply three levels down, for the screenshots.
DISCUSSION = [
    ("pass1@example.org", None, "Ann Example <ann@example.org>", "[sats] AO-91 pass over JN58 tonight", 0),
    ("pass2@example.org", "pass1@example.org", "Bob Ham <bob@example.net>", "Re: [sats] AO-91 pass over JN58", 1),
    ("pass3@example.org", "pass2@example.org", "Ann Example <ann@example.org>", "Re: [sats] AO-91 pass", 2),
    ("pass4@example.org", "pass3@example.org", "Carla <carla@example.com>", "Re: [sats] AO-91 pass", 3),
    ("pass5@example.org", "pass1@example.org", "Dan <dan@example.com>", "Re: [sats] AO-91 pass over JN58", 4),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with app_in_thread(tmp_path_factory.mktemp("browse") / "sathub.db") as (base, engine):
        seed_archive(engine)
        with db.connect(engine, write=True) as conn:
            lists.create_list(
                conn, "sats@example.org", {"created_at": utc_now(), "description": "Amateur satellite operators"}
            )
            for message_id, parent, sender, subject, minute in DISCUSSION:
                body = f"> quoted text of the message before\n\nReply number {minute}.\n{LONG_LINE}\n-- \n73\n"
                raw = raw_message(
                    message_id,
                    sender=sender,
                    subject=subject,
                    reply_to=parent,
                    date=f"Tue, 02 Mar 2021 20:{minute:02d}:00 +0000",
                    body=body,
                )
                live_ingest.store(conn, "sats@example.org", live_ingest.parse(raw))
        yield base


def no_wider_than_the_screen(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], (page.url, width)


@pytest.mark.browser
def test_browsing_on_a_phone_without_javascript(served, browser, screenshots):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    page = context.new_page()
    page.goto(f"{served}/archive/")
    assert page.get_by_role("heading", level=1).inner_text() == "Mailing lists"
    assert page.get_by_role("banner").count() == 1 and page.get_by_role("main").count() == 1
    no_wider_than_the_screen(page)
    page.screenshot(path=str(screenshots / "archive-index-phone.png"), full_page=True)

    page.get_by_role("link", name="sats@example.org").click()
    assert page.get_by_role("heading", level=1).inner_text() == "sats@example.org"
    headings = page.get_by_role("heading", level=2).all_inner_texts()
    assert headings == ["Latest threads", "Most active threads", "Months with mail"]
    assert page.get_by_role("table", name="Most active threads").get_by_role("row").count() == 2  # header + 1
    no_wider_than_the_screen(page)
    page.screenshot(path=str(screenshots / "archive-list-phone.png"), full_page=True)

    page.get_by_role("navigation", name="Months with mail").get_by_role("link", name="March").click()
    assert page.url == f"{served}/archive/list/sats@example.org/2021/03/"
    assert page.get_by_role("heading", level=1).inner_text() == "March 2021"
    no_wider_than_the_screen(page)
    page.screenshot(path=str(screenshots / "archive-month-phone.png"), full_page=True)

    page.get_by_role("link", name="[sats] AO-91 pass over JN58 tonight").click()
    articles = page.locator("article")
    assert articles.count() == 5
    # The replies as nested lists: Bob's under Ann's, Ann's answer under Bob's, Carla's under that.
    replies = page.get_by_role("list", name="Messages in thread order")
    root = replies.locator(":scope > li")
    assert root.count() == 1
    first_level = root.locator(":scope > ol > li > article h2")
    assert first_level.all_inner_texts() == ["Re: [sats] AO-91 pass over JN58", "Re: [sats] AO-91 pass over JN58"]
    third = root.locator(":scope > ol > li > ol > li > ol > li > article")
    assert "Reply number 3." in third.locator("pre").inner_text()
    assert LONG_LINE in articles.first.locator("pre").inner_text()
    no_wider_than_the_screen(page)
    page.screenshot(path=str(screenshots / "archive-thread-phone.png"), full_page=True)
    page.screenshot(path=str(screenshots / "archive-thread-phone-top.png"))

    # Every link has a name; every region a screen reader lists is named.
    for link in page.get_by_role("link").all():
        assert link.inner_text().strip() or link.get_attribute("aria-label"), link
    assert page.get_by_role("navigation", name="Breadcrumb").count() == 1
    assert page.get_by_role("navigation", name="This thread").get_by_role("link", name="Download as mbox.gz").count()
    context.close()


@pytest.mark.browser
def test_the_nested_thread_on_a_desktop(served, browser, screenshots):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.goto(f"{served}/archive/list/{DEV}/thread/{MAIL['A'].hash}/")
    assert page.get_by_role("heading", level=1).inner_text() == "[dev] Welcome"
    assert page.locator("article h2").all_inner_texts() == ["[dev] Welcome", *["Re: [dev] Welcome"] * 3]
    page.screenshot(path=str(screenshots / "archive-thread-page.png"), full_page=True)
    page.get_by_role("link", name="Atom feed").click()  # the feed is served to the browser as XML
    assert page.url.endswith("/feed/atom/")
    context.close()
