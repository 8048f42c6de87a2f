"""The archive behind a real shared cache: Debian's nginx (`make test` installs it, as it installs
chromium) with proxy_cache and proxy_cache_revalidate, configured as docs/archive-caching.md
says, in front of a real `sathub serve` whose max-ages are set to 1 s. A second request is
nginx's hit; a request after max-age is a revalidation that sathub answers 304 (its access log
says so); mail stored meanwhile is what a request gets once max-age has passed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from sathub import db
from sathub.archive.mailman import live_ingest
from tests.archive.api_fixtures import DEV, MAIL
from tests.archive.messages import raw_message
from tests.live_server import free_port, sathub_server

MAX_AGE = 1  # seconds, every kind: the test waits it out
# nginx keeps time in whole seconds and uses a copy through the last second of its max-age: a copy
# stored at 10.9 s with max-age 1 is fresh until 12.0 s (1.1 s measured as still a HIT).
EXPIRED = MAX_AGE + 1.1
A = MAIL["A"]
# The configuration of docs/archive-caching.md, with the test's own ports and folders.
CONFIG = """
{user}
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    proxy_cache_path {folder}/cache levels=1:2 keys_zone=archive:10m max_size=1g inactive=7d use_temp_path=off;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass {upstream};
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_cache archive;
            proxy_cache_revalidate on;
            proxy_cache_lock on;
            proxy_cache_use_stale error timeout http_500 http_502 http_503 http_504;
            proxy_cache_background_update on;
            add_header X-Cache-Status $upstream_cache_status always;
        }}
    }}
}}
"""


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    assert found, "Debian's nginx is missing: `make nginx` installs it (apt-get install nginx-light)"
    return found


@contextmanager
def nginx_in_front(upstream: str, folder: Path) -> Iterator[str]:
    """nginx caching `upstream` on a free port of 127.0.0.1; yields its root URL."""
    port = free_port()
    # As root, nginx's workers would become `nobody`, who cannot enter pytest's folders.
    user = "user root;" if os.geteuid() == 0 else ""
    config = folder / "nginx.conf"
    config.write_text(CONFIG.format(user=user, folder=folder, port=port, upstream=upstream))
    process = subprocess.Popen(
        [nginx_binary(), "-c", str(config), "-p", str(folder), "-e", str(folder / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while True:
            assert process.poll() is None, (folder / "error.log").read_text()
            try:
                httpx.get(root + "/archive/", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "nginx did not start within 10 s"
                time.sleep(0.05)
        yield root
    finally:
        process.terminate()
        process.wait(timeout=10)


def upstream_statuses(log: Path, path: str) -> list[int]:
    """The statuses sathub's access log gives the GETs of `path`, in order."""
    line = re.compile(rf'"GET {re.escape(path)} HTTP/1\.[01]" (\d{{3}}) ')
    return [int(found[1]) for found in line.finditer(log.read_text(errors="replace"))]


def wait_for_log(log: Path, path: str, count: int) -> list[int]:
    """The access log is written as the answer leaves: give it a moment."""
    deadline = time.monotonic() + 5
    while len(statuses := upstream_statuses(log, path)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return statuses


def test_nginx_hits_revalidates_and_shows_new_mail_after_max_age(database_url, engine, archive, tmp_path):
    ages = {
        "SATHUB_ARCHIVE_MAX_AGE_MESSAGE": str(MAX_AGE),
        "SATHUB_ARCHIVE_MAX_AGE_LISTING": str(MAX_AGE),
        "SATHUB_ARCHIVE_STALE_WHILE_REVALIDATE": "0",
        "SATHUB_LOG_LEVEL": "info",
        "SATHUB_ACCESS_LOG": "1",
    }
    log = tmp_path / "serve.log"
    message = f"/archive/list/{DEV}/message/{A.hash}/"
    thread = f"/archive/list/{DEV}/thread/{A.hash}/"
    with (
        sathub_server(database_url, env=ages, output=log) as upstream,
        nginx_in_front(upstream, tmp_path) as cache,
        httpx.Client(base_url=cache, timeout=10) as client,
    ):
        first = client.get(message)
        assert first.status_code == 200 and first.headers["x-cache-status"] == "MISS"
        assert first.headers["cache-control"] == f"public, max-age={MAX_AGE}, must-revalidate"
        second = client.get(message)
        assert second.headers["x-cache-status"] == "HIT" and second.content == first.content
        assert wait_for_log(log, message, 1) == [200]  # the hit never reached sathub

        time.sleep(EXPIRED)
        third = client.get(message)
        assert third.headers["x-cache-status"] == "REVALIDATED" and third.content == first.content
        assert wait_for_log(log, message, 2) == [200, 304]

        before = client.get(thread)
        assert "A late reply" not in before.text
        reply = raw_message("late@example.org", headers=(f"In-Reply-To: <{A.message_id}>",), body="A late reply\n")
        with db.connect(engine, write=True) as conn:
            live_ingest.store(conn, DEV, live_ingest.parse(reply))
        # Within max-age the cache answers alone, as documented; after it, the new mail shows.
        assert client.get(thread).headers["x-cache-status"] == "HIT"
        time.sleep(EXPIRED)
        after = client.get(thread)
        assert after.headers["x-cache-status"] == "EXPIRED" and "A late reply" in after.text
        assert wait_for_log(log, thread, 2) == [200, 200]
        # A private list's 403 is never kept: every request reaches sathub.
        private = f"/archive/list/private@example.org/message/{MAIL['P'].hash}/"
        for _ in range(2):
            refused = client.get(private)
            assert refused.status_code == 403 and refused.headers["x-cache-status"] == "MISS"
        assert wait_for_log(log, private, 2) == [403, 403]
