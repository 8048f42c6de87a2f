"""Version 2's document in the offline Swagger UI, beside version 1's: each docs page links to the
other, and /api/v2/docs loads /api/v2/openapi.json, names every operation and runs one, with
nothing fetched from another origin and no failed request (tests/status/api/test_docs_pages.py's
Visit), at the root and under a prefix."""

import re

import pytest

from sathub.status.api import docs_pages
from tests.live_server import app_in_thread
from tests.status.api.test_docs_pages import PREFIXES, Visit, operation_name
from tests.status.api.v2.test_openapi import DOCUMENT


@pytest.fixture(params=PREFIXES, ids=["root", "prefix"])
def site(request, tmp_path):
    with app_in_thread(tmp_path / "sathub.db", prefix=request.param) as (site, _engine):
        yield site


def test_the_docs_pages_link_the_two_versions(client):
    assert '<a href="./v2/docs">API v2</a>' in client.get("/api/docs.php").text
    assert '<a href="../v2/docs">API v2</a>' in client.get("/api/v1/docs.php").text
    page = client.get("/api/v2/docs")
    assert page.status_code == 200
    assert 'data-spec-url="./openapi.json"' in page.text
    assert '<a href="../docs.php">API v1</a>' in page.text
    assert '<a href="./../index.php">API overview</a>' in page.text
    assert '<a href="../acknowledgements.php">Acknowledgements</a>' in page.text
    assert '<script src="../swagger-ui/swagger-ui-bundle.js">' in page.text
    assert docs_pages.V2.spec_url == "./openapi.json"


@pytest.mark.browser
def test_swagger_ui_shows_version_2_and_runs_it(browser, site):
    visit = Visit(browser, site)
    visit.page.route("**/v2/docs", Visit._strict)
    page, expect = visit.page, visit.expect
    try:
        page.goto(f"{site}/api/v1/docs.php")
        with page.expect_response(f"{site}/api/v2/openapi.json") as document:
            page.get_by_role("link", name="API v2").click()
        assert document.value.ok
        expect(page.get_by_text("2.0.0").first).to_be_visible()
        for path, item in DOCUMENT["paths"].items():
            for method in item:
                expect(page.get_by_role("button", name=operation_name(method.upper(), path))).to_have_count(1)
        block = page.locator("#operations-Status-getStatusGrid")
        block.get_by_role("button", name=operation_name("GET", "/status")).click()
        block.get_by_role("button", name="Try it out").click()
        with page.expect_response(lambda response: response.url.split("?")[0] == f"{site}/api/v2/status") as answer:
            block.get_by_role("button", name="Execute").click()
        assert answer.value.status == 200
        body = block.locator(".live-responses-table .response-col_description:not(.col_header) code")
        expect(body.first).to_contain_text(re.compile(r'"meta":'))
    finally:
        visit.close()
