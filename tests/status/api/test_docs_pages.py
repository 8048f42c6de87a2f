"""The API documentation pages (status-api.md 10 and 13): exact strings, content types, links
at the root and under a path prefix, Swagger UI served from our own tree, and a real browser."""

from __future__ import annotations

import re
import socket
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import uvicorn
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.config import Settings
from sathub.status.api import docs_pages as docs
from sathub.status.store import catalog as catalog_store

OVERVIEWS = ["/api/", "/api/index.php", "/api/v1/overview.php"]
SWAGGER_PAGES = {"/api/docs.php": ("./v1/openapi.php", "./index.php"),
                 "/api/v1/docs.php": ("./openapi.php", "./overview.php")}
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


@pytest.mark.parametrize("path, folder", [("/api/", "/api"), ("/api/index.php", "/api"),
                                          ("/api/v1/overview.php", "/api/v1")])
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
        "favicon-32x32.png", "swagger-ui.css", "swagger-ui-bundle.js", "swagger-init.js"}
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


# --- a real browser against a real server under a prefix ---

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def live_site(tmp_path):
    """A uvicorn server on a free port serving the app under /status, with a seeded catalog."""
    url = f"sqlite:///{tmp_path / 'sathub.db'}"
    engine = db.create_engine(url)
    db.upgrade(engine)
    with db.connect(engine, write=True) as conn:
        catalog_store.load_catalog(conn, [{"name": "AO-91", "display_name": "AO-91", "website": ""}])
    port = free_port()
    site = f"http://127.0.0.1:{port}/status"
    app = create_app(Settings(database_url=url, base_url=site), engine=engine)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield site
    server.should_exit = True
    thread.join(timeout=10)
    engine.dispose()


@pytest.mark.browser
@pytest.mark.parametrize("docs_page", ["/api/docs.php", "/api/v1/docs.php"])
def test_swagger_ui_in_chromium(live_site, docs_page, screenshots):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Debian's chromium is not installed (make chromium)")
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.on("requestfailed", lambda request: problems.append(f"failed: {request.url}"))
            page.on("response", lambda response: response.status >= 400 and problems.append(
                f"{response.status}: {response.url}"))
            page.goto(f"{live_site}{docs_page}")
            sync_api.expect(page.locator(".information-container .title")).to_contain_text(
                "AMSAT Satellite Status API")
            # Swagger UI 4 writes the path with zero-width spaces before each "/".
            for operation, label in (("Reports-getReports", r"GET\s*\u200b?/reports\.php\s*Search"),
                                     ("Reports-createReport", r"POST\s*\u200b?/reports\.php\s*Submit")):
                summary = page.locator(f"#operations-{operation} .opblock-summary")
                sync_api.expect(summary).to_be_visible()
                sync_api.expect(summary).to_contain_text(re.compile(label))

            statuses = page.locator("#operations-Metadata-getStatuses")
            statuses.locator(".opblock-summary").click()
            statuses.get_by_role("button", name="Try it out").click()
            with page.expect_response(f"{live_site}/api/v1/statuses.php") as answer:
                statuses.get_by_role("button", name="Execute").click()
            assert answer.value.status == 200
            status_cell = statuses.locator(".live-responses-table td.response-col_status:not(.col_header)")
            sync_api.expect(status_cell).to_have_text("200")
            page.screenshot(path=screenshots / "api-docs.png", full_page=False)
        finally:
            browser.close()
    assert problems == []
    assert (screenshots / "api-docs.png").read_bytes().startswith(b"\x89PNG")
