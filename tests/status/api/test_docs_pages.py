"""The API documentation pages (status-api.md 10 and 13): exact strings, content types, links
at the root and under a path prefix, Swagger UI served from our own tree, and a real browser."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from sathub.status.api import docs_pages as docs
from sathub.status.store import catalog as catalog_store
from tests.live_server import app_in_thread

OVERVIEWS = ["/api/", "/api/index.php", "/api/v1/overview.php"]
SWAGGER_PAGES = {
    "/api/docs.php": ("./v1/openapi.php", "./index.php"),
    "/api/v1/docs.php": ("./openapi.php", "./overview.php"),
}
ACKNOWLEDGEMENTS = {"/api/acknowledgements.php": "./index.php", "/api/v1/acknowledgements.php": "./overview.php"}
CDN_MARKERS = ("unpkg", "jsdelivr", "cdnjs", "cdn.", "googleapis", "validator.swagger.io")


class Links(HTMLParser):
    """Every src and href of a page."""

    def __init__(self, page: str):
        super().__init__()
        self.urls: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in ("src", "href") and value]


@pytest.fixture
def prefixed_client(engine, database_url):
    settings = Settings(database_url=database_url, base_url="http://sathub.test/status")
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as client:
        yield client


@pytest.mark.parametrize("path", OVERVIEWS)
def test_overview_page(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    page = response.text
    assert "<title>AMSAT Satellite Status API</title>" in page
    assert "Version 1.0.0" in page
    assert "Base URLs" in page
    base = "http://sathub.test/api/v1"
    for url in (base, f"{base}/openapi.php", f"{base}/sat_info.php?name=AO-91&amp;hours=24"):
        assert url in page
    assert '"code": "invalid_parameter"' in page
    assert "Compatibility" in page and "bare, compact JSON array" in page
    for item in docs.DOCUMENT["paths"].values():
        for operation in item.values():
            block = page.split(f'id="{operation["operationId"]}"', 1)[1].split("</section>", 1)[0]
            assert "<pre>curl " in block


@pytest.mark.parametrize(
    "path, folder", [("/api/", "/api"), ("/api/index.php", "/api"), ("/api/v1/overview.php", "/api/v1")]
)
def test_overview_links_follow_the_page_generation(client, path, folder):
    # ca2278e: the docs pages live in /api/; later upstream moved them into /api/v1/ (section 13).
    page = client.get(path).text
    assert f'href="http://sathub.test{folder}/docs.php"' in page
    assert f'href="http://sathub.test{folder}/acknowledgements.php"' in page


def test_overview_blocks_come_from_the_document(client):
    page = client.get("/api/").text
    reports = page.split('id="getReports"', 1)[1].split("</section>", 1)[0]
    assert "Search recent satellite status reports" in reports
    assert "clamped into <strong>1…720</strong>" in reports
    assert "curl &#39;http://sathub.test/api/v1/reports.php?name=AO-91&amp;hours=24&#39;" in reports
    create = page.split('id="createReport"', 1)[1].split("</section>", 1)[0]
    assert "curl -X POST &#39;http://sathub.test/api/v1/reports.php&#39;" in create


@pytest.mark.parametrize("path", SWAGGER_PAGES)
def test_swagger_page(client, path):
    spec_url, overview = SWAGGER_PAGES[path]
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    page = response.text
    assert "<title>AMSAT Satellite Status API Docs</title>" in page
    assert 'id="swagger-ui"' in page
    assert spec_url in page
    assert f'<a href="{overview}">API overview</a>' in page
    assert '<a href="./acknowledgements.php">Acknowledgements</a>' in page


@pytest.mark.parametrize("path", ACKNOWLEDGEMENTS)
def test_acknowledgements(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    text = response.text
    title = "AMSAT Satellite Status API Acknowledgements"
    assert text.startswith(f"{title}\n{'=' * len(title)}\n")
    assert "Thank you" in text
    assert "Contributors" in text
    assert "Ben Welsh, KFØIA" in text
    assert "Dominic Hord, AD8AK" in text
    assert "Links" in text
    assert f"API overview: {ACKNOWLEDGEMENTS[path]}" in text
    assert "Swagger documentation: ./docs.php" in text


@pytest.mark.parametrize("path", ["/api/", "/api/docs.php", "/api/v1/docs.php", "/api/acknowledgements.php"])
def test_pages_answer_any_method(client, path):
    assert client.post(path).status_code == 200
    assert client.head(path).status_code == 200


@pytest.mark.parametrize("path", [*OVERVIEWS, *SWAGGER_PAGES, *ACKNOWLEDGEMENTS])
def test_no_third_party_url(client, path):
    page = client.get(path).text
    assert not any(marker in page for marker in CDN_MARKERS)
    for url in Links(page).urls:
        assert not urlsplit(url).netloc or url.startswith("http://sathub.test/"), url


@pytest.mark.parametrize("page_path", SWAGGER_PAGES)
def test_swagger_assets_are_served_from_our_tree(prefixed_client, page_path):
    page_url = f"http://sathub.test/status{page_path}"
    urls = Links(prefixed_client.get(page_url).text).urls
    assets = [urljoin(page_url, url) for url in urls if "swagger-ui/" in url]
    assert {url.rsplit("/", 1)[1] for url in assets} == {
        "favicon-32x32.png",
        "swagger-ui.css",
        "swagger-ui-bundle.js",
        "swagger-init.js",
        "docs-page.css",
    }
    for url in assets:
        assert url.startswith("http://sathub.test/status/api/swagger-ui/")
        response = prefixed_client.get(url)
        assert response.status_code == 200, url
        assert response.content
    init = prefixed_client.get("/status/api/swagger-ui/swagger-init.js")
    assert init.headers["content-type"] == "text/javascript; charset=utf-8"
    assert "validatorUrl: null" in init.text


def test_only_the_needed_swagger_files_are_served(client):
    # The package's own index.html and initializer point at the petstore demo.
    for name in ("index.html", "swagger-initializer.js", "index.j2", "..%2Fopenapi.json"):
        assert client.get(f"/api/swagger-ui/{name}").status_code == 404


def test_pages_under_a_prefix(prefixed_client):
    overview = prefixed_client.get("/status/api/").text
    assert "http://sathub.test/status/api/v1/openapi.php" in overview
    assert 'href="http://sathub.test/status/api/docs.php"' in overview
    later = prefixed_client.get("/status/api/v1/overview.php").text
    assert 'href="http://sathub.test/status/api/v1/acknowledgements.php"' in later
    assert "./v1/openapi.php" in prefixed_client.get("/status/api/docs.php").text
    assert prefixed_client.get("/status/api/acknowledgements.php").status_code == 200
    # what "./v1/openapi.php" resolves to from the page: the document, its server under the prefix
    document = prefixed_client.get("/status/api/v1/openapi.php").json()
    assert document["servers"][0]["url"] == "/status/api/v1"
    assert prefixed_client.get("/api/docs.php").status_code == 404


# --- a real browser against a real server, at the root and under a prefix ---

PREFIXES = ["", "/status"]
# What a strict deployment may send with the page: no inline script or style, no eval, nothing
# from another origin. Swagger UI and our page must work under it.
STRICT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'self'"
)


@pytest.fixture(params=PREFIXES, ids=["root", "prefix"])
def live_site(request, tmp_path):
    """A uvicorn server on a free port serving the app at the root or under /status, with a seeded
    catalog."""
    with app_in_thread(tmp_path / "sathub.db", prefix=request.param) as (site, engine):
        with db.connect(engine, write=True) as conn:
            catalog_store.load_catalog(conn, [{"name": "AO-91", "display_name": "AO-91", "website": ""}])
        yield site


class Visit:
    """One browser page on the live site that records every request, failure, error answer and
    console error, with the docs pages served under STRICT_CSP."""

    def __init__(self, browser, site: str):
        from playwright.sync_api import expect

        self.expect = expect
        self.origin = "{0.scheme}://{0.netloc}/".format(urlsplit(site))
        self.context = browser.new_context(viewport={"width": 1280, "height": 1000})
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.problems: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("requestfailed", lambda request: self.problems.append(f"failed: {request.url}"))
        self.page.on(
            "response",
            lambda response: response.status >= 400 and self.problems.append(f"{response.status}: {response.url}"),
        )
        self.page.on(
            "console", lambda message: message.type == "error" and self.problems.append(f"console: {message.text}")
        )
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.route("**/docs.php", self._strict)

    @staticmethod
    def _strict(route):
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": STRICT_CSP})

    def close(self):
        self.context.close()
        assert self.problems == []
        assert self.requests
        # fully offline: nothing but the live server, not even a favicon or validator badge elsewhere
        assert [url for url in self.requests if not url.startswith(self.origin)] == []


@pytest.fixture
def visit(browser, live_site):
    visit = Visit(browser, live_site)
    yield visit
    visit.close()


def operation_name(method: str, path: str) -> re.Pattern:
    """An accessible name that starts with "GET /path" (Swagger UI 5's operation buttons), with "/"
    escaped too: Playwright hands the pattern to the browser as /.../."""
    return re.compile(rf"^{method} {re.escape(path).replace('/', chr(92) + '/')}(\s|$)")


@pytest.mark.browser
@pytest.mark.parametrize("docs_page", SWAGGER_PAGES)
def test_swagger_ui_5_names_operations_like_upstream(visit, live_site, docs_page):
    # Upstream's own Playwright suite ("Swagger docs are public and load the OpenAPI document")
    # runs against Swagger UI 5, which names an operation's button "GET /reports.php Search recent…";
    # Swagger UI 4 named it "get \u200b/reports.php".
    page, expect = visit.page, visit.expect
    with page.expect_response(f"{live_site}/api/v1/openapi.php") as document:
        page.goto(f"{live_site}{docs_page}")
    assert document.value.ok
    expect(page).to_have_title(re.compile("AMSAT Satellite Status API Docs"))
    expect(page.get_by_role("link", name="Acknowledgements")).to_be_visible()
    expect(page.locator("#swagger-ui")).to_be_visible()
    expect(page.get_by_text("AMSAT Satellite Status API")).to_be_visible()
    expect(page.get_by_role("button", name="GET /reports.php Search")).to_be_visible()
    expect(page.get_by_role("button", name="POST /reports.php Submit")).to_be_visible()
    operation = page.get_by_role("button", name=re.compile(r"^GET \/reports\.php"))
    expect(operation).to_have_count(1)
    expect(operation).to_have_accessible_name("GET /reports.php Search recent satellite status reports")
    for item_path, item in docs.DOCUMENT["paths"].items():
        for method in item:
            expect(page.get_by_role("button", name=operation_name(method.upper(), item_path))).to_have_count(1)


def try_it_out(visit: Visit, site: str, operation_id: str, path: str):
    """Opens an operation, presses "Try it out" and "Execute"; returns the operation's block."""
    page, expect = visit.page, visit.expect
    block = page.locator(f"#operations-{operation_id}")
    block.get_by_role("button", name=operation_name("GET", path)).click()
    block.get_by_role("button", name="Try it out").click()
    with page.expect_response(
        lambda response: response.url.split("?")[0] == f"{site}/api/v1{path}" and response.request.method == "GET"
    ) as answer:
        block.get_by_role("button", name="Execute").click()
    assert answer.value.status == 200
    status_cell = block.locator(".live-responses-table td.response-col_status:not(.col_header)")
    expect(status_cell).to_have_text("200")
    expect(block.locator(".request-url")).to_contain_text(f"{site}/api/v1{path}")
    return block


@pytest.mark.browser
@pytest.mark.parametrize("docs_page", SWAGGER_PAGES)
def test_try_it_out_reports(visit, live_site, docs_page):
    visit.page.goto(f"{live_site}{docs_page}")
    block = try_it_out(visit, live_site, "Reports-getReports", "/reports.php")
    # Swagger UI 5 fills the parameters with the document's examples (name=AO-91, hours=24, limit=500)
    body = block.locator(".live-responses-table .response-col_description:not(.col_header) code")
    visit.expect(body.first).to_contain_text(re.compile(r'"data": \[.*"meta": \{', re.DOTALL))


@pytest.mark.browser
@pytest.mark.parametrize("docs_page", SWAGGER_PAGES)
def test_try_it_out_statuses(visit, live_site, docs_page, screenshots):
    visit.page.goto(f"{live_site}{docs_page}")
    block = try_it_out(visit, live_site, "Metadata-getStatuses", "/statuses.php")
    if urlsplit(live_site).path == "/status" and docs_page == "/api/docs.php":
        # docs/api.md shows this one: "try it out" on statuses.php under the /status prefix
        block.evaluate("element => element.scrollIntoView()")
        visit.page.screenshot(path=screenshots / "api-docs.png", full_page=False)
        assert (screenshots / "api-docs.png").read_bytes().startswith(b"\x89PNG")
