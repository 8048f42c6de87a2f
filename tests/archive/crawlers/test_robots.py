"""/robots.txt through the app, read by Python's urllib.robotparser (the independent reader): the
real URLs of every door, allowed or kept out, on SQLite and PostgreSQL."""

from __future__ import annotations

from urllib.robotparser import RobotFileParser

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import SettingError, Settings
from tests.archive.api_fixtures import BASE, MAIL, mailman_id

WEB_PREFIXES = ("/archive/", "/archives/", "/hyperkitty/")
MESSAGE, THREAD = MAIL["E"], MAIL["A"]
DEV = "dev@example.org"


def crawler_of(text: str) -> RobotFileParser:
    parser = RobotFileParser()
    parser.parse(text.splitlines())
    return parser


def allowed_paths(web: str) -> list[str]:
    """The pages, raw sources, feeds and downloads of one web prefix, and its sitemaps."""
    return [
        web,
        f"{web}list/{DEV}/",
        f"{web}list/{DEV}/2021/01/",
        f"{web}list/{DEV}/latest",
        f"{web}list/{DEV}/thread/{THREAD.hash}/",
        f"{web}list/{DEV}/message/{MESSAGE.hash}/",
        f"{web}list/{DEV}/message/{MESSAGE.hash}/raw",
        f"{web}list/{DEV}/message/{MESSAGE.hash}/attachment/3/signature.asc",
        f"{web}list/{DEV}/feed/",
        f"{web}list/{DEV}/feed/atom/",
        f"{web}list/{DEV}/thread/{THREAD.hash}/feed/atom/",
        f"{web}sender/{mailman_id('alice@example.org')}/feed/atom/",
        f"{web}pipermail/dev/",
        f"{web}pipermail/dev/2021-January/",
    ]


def disallowed_paths(web: str) -> list[str]:
    """The searches (page, JSON, feed), every export of a list and of a search, and the read API."""
    export = f"{web}list/{DEV}/export/dev.mbox.gz"
    return [
        f"{web}search?q=welcome",
        f"{web}search/feed/atom/?q=welcome",
        f"{web}search/export/found.mbox.gz?q=welcome",
        export,
        f"{export}?start=2021-01-01&end=2021-02-01",
        f"{web}list/{DEV}/export/{THREAD.hash}.mbox.gz?thread={THREAD.hash}",
        f"{export}?message={MESSAGE.hash}",
        f"{export}?q=welcome",
        f"{web}list/other@example.org/export/other.mbox.gz",
        f"{web}api/",
        f"{web}api/lists/",
        f"{web}api/list/{DEV}/emails/",
        f"{web}api/search/?q=welcome",
    ]


STATUS_ALLOWED = ["/", "/index.php", "/api/", "/api/v1/docs.php", "/api/v1/catalog.php", "/api/v2/status"]
STATUS_DISALLOWED = [
    "/admin/",
    "/admin/dashboard.php",
    "/submit.php",
    "/api/v1/reports.php",
    "/api/v1/reports.php?satellite=AO-91",
    "/api/v2/reports?satellite=AO-91",
    "/api/v2/passes?satellite=AO-91&locator=FN31",
]


def test_crawlers_may_read_pages_sources_and_feeds_and_stay_out_of_searches_exports_and_admin(client, archive):
    answer = client.get("/robots.txt")
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/plain; charset=utf-8"
    crawler = crawler_of(answer.text)
    allowed = STATUS_ALLOWED + [path for web in WEB_PREFIXES for path in allowed_paths(web)]
    disallowed = STATUS_DISALLOWED + [path for web in WEB_PREFIXES for path in disallowed_paths(web)]
    for path in allowed:
        assert client.get(path, follow_redirects=False).status_code in (200, 302), path  # a real door
        assert crawler.can_fetch("AnyBot", BASE + path), path
    for path in disallowed:
        assert client.get(path, follow_redirects=False).status_code != 404, path
        assert not crawler.can_fetch("AnyBot", BASE + path), path
    # The stream never ends (it is not fetched here), and a pipermail month's mbox redirects to an export.
    assert not crawler.can_fetch("AnyBot", f"{BASE}/api/v2/stream")
    redirect = client.get("/archive/pipermail/dev/2021-January.txt.gz", follow_redirects=False)
    assert redirect.status_code == 302 and not crawler.can_fetch("AnyBot", redirect.headers["location"])
    assert "Disallow: /archive/pipermail/*.txt.gz" in answer.text.splitlines()  # for RFC 9309 crawlers


def test_it_names_the_sitemap_index_of_each_public_list_with_mail_and_never_a_private_list(client, archive):
    text = client.get("/robots.txt").text
    assert crawler_of(text).site_maps() == [
        f"{BASE}/archive/list/{name}/sitemap.xml" for name in (DEV, "other@example.org")
    ]
    assert "private" not in text
    for location in crawler_of(text).site_maps():
        assert client.get(location).status_code == 200


def test_under_a_prefix_every_rule_and_address_carries_it(engine, archive, database_url):
    settings = Settings(database_url=database_url, base_url=f"{BASE}/status", secret_key="test")
    with TestClient(create_app(settings, engine=engine), base_url=BASE) as prefixed:
        answer = prefixed.get("/robots.txt")
        assert answer.status_code == 200
        crawler = crawler_of(answer.text)
        assert crawler.can_fetch("AnyBot", f"{BASE}/status/archive/list/{DEV}/message/{MESSAGE.hash}/")
        assert not crawler.can_fetch("AnyBot", f"{BASE}/status/archive/search?q=welcome")
        assert not crawler.can_fetch("AnyBot", f"{BASE}/status/admin/")
        assert not crawler.can_fetch("AnyBot", f"{BASE}/status/hyperkitty/list/{DEV}/export/dev.mbox.gz")
        assert crawler.site_maps()[0] == f"{BASE}/status/archive/list/{DEV}/sitemap.xml"
        assert prefixed.get(crawler.site_maps()[0].removeprefix(BASE)).status_code == 200


def test_its_content_may_be_a_file_of_the_operators(engine, database_url, tmp_path):
    own = tmp_path / "robots.txt"
    own.write_bytes(b"User-agent: *\nDisallow: /\n")
    settings = Settings.from_env({}, database_url=database_url, robots_txt=str(own))
    with TestClient(create_app(settings, engine=engine), base_url=BASE) as configured:
        assert configured.get("/robots.txt").content == own.read_bytes()
        own.unlink()  # gone since the start: a 503 in plain text, not a 500
        gone = configured.get("/robots.txt")
        assert gone.status_code == 503 and gone.headers["content-type"] == "text/plain; charset=utf-8"
    with pytest.raises(SettingError, match="SATHUB_ROBOTS_TXT"):
        Settings.from_env({"SATHUB_ROBOTS_TXT": str(tmp_path / "missing.txt")})


def test_a_conditional_get_is_a_304_and_other_methods_a_405(client, archive):
    tag = client.get("/robots.txt").headers["etag"]
    again = client.get("/robots.txt", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/robots.txt", headers={"If-None-Match": "garbage"}).status_code == 200
    refused = client.post("/robots.txt")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"
