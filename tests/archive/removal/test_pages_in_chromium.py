"""Removal in Chromium, as an administrator meets it: log in on /admin/, open a thread, press a
message's "Delete / Hide", give a reason, confirm, and land on the thread without that message.
The screenshots go to docs/screenshots/ under SATHUB_SCREENSHOTS=1 (make screenshots)."""

from __future__ import annotations

import bcrypt
import pytest

from sathub import db
from sathub.status.store import accounts
from tests.archive.api_fixtures import MAIL, seed_archive
from tests.live_server import app_in_thread

DEV = "dev@example.org"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with app_in_thread(tmp_path_factory.mktemp("removal") / "sathub.db", secret_key="browser-test") as (base, engine):
        seed_archive(engine)
        with db.connect(engine, write=True) as conn:
            accounts.save_user(conn, "admin", bcrypt.hashpw(b"secret words", bcrypt.gensalt(4)).decode())
        yield base


@pytest.mark.browser
def test_an_administrator_hides_a_message_from_its_thread_page(served, browser, screenshots):
    thread = f"{served}/archive/list/{DEV}/thread/{MAIL['A'].hash}/"
    anonymous = browser.new_context(java_script_enabled=False)
    public = anonymous.new_page()
    public.goto(thread)
    assert public.get_by_role("link", name="Delete or hide this message").count() == 0
    anonymous.close()

    # A browser that already holds the public page keeps it for its max-age (a reload asks again,
    # and gets the page with the buttons): this one logs in first.
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{served}/admin/")
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill("secret words")
    page.get_by_role("button", name="Login").click()
    page.wait_for_url("**/admin/dashboard.php")
    page.goto(thread)
    assert page.get_by_role("article").count() == 4
    page.screenshot(path=str(screenshots / "archive-removal-thread.png"), full_page=True)

    page.locator(f"#m-{MAIL['B'].hash}").get_by_role("link", name="Delete or hide this message").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Remove this message"
    page.get_by_label("Reason").fill("posted by mistake")
    page.screenshot(path=str(screenshots / "archive-removal-confirm.png"), full_page=True)
    page.get_by_role("button", name="Remove").click()

    assert page.url == thread
    assert page.get_by_role("article").count() == 3
    assert page.locator(f"#m-{MAIL['B'].hash}").count() == 0
    page.screenshot(path=str(screenshots / "archive-removal-after.png"), full_page=True)
    context.close()
