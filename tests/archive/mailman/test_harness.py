"""The harness drives the real Mailman 3.3.10 and mailman-hyperkitty 1.2.1 against a tiny recording
HTTP endpoint: what the plugin sends, and what it does when the archive is down or refuses."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.archive.mailman.harness import Mailman, ensure_venv
from tests.archive.messages import raw_message
from tests.live_server import free_port

pytestmark = pytest.mark.slow

KEY = "s3cret-key"
ANSWER = "http://x/list/a@b/message/HASH/"


class Recorder(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests = []  # (method, path, headers, body)
        self.status = 200
        self.lock = threading.Lock()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_port}"

    def take(self):
        with self.lock:
            taken, self.requests = self.requests, []
        return taken


class Handler(BaseHTTPRequestHandler):
    def _answer(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.server.lock:
            self.server.requests.append((self.command, self.path, dict(self.headers), body))
        status = self.server.status
        out = json.dumps({"url": ANSWER} if status == 200 else {"detail": "refused"}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


def multipart(headers, body):
    """{field name: (filename, headers, bytes)} of a multipart/form-data body, byte for byte."""
    boundary = headers["Content-Type"].split("boundary=", 1)[1].strip('"').encode()
    fields = {}
    for chunk in body.split(b"--" + boundary)[1:-1]:
        head, _, content = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        part_headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n"))
        disposition = dict(item.strip().split("=", 1) for item in part_headers["Content-Disposition"].split(";")[1:])
        fields[disposition["name"].strip('"')] = (
            disposition.get("filename", "").strip('"') or None,
            part_headers,
            content.removesuffix(b"\r\n"),
        )
    assert body.endswith(b"--" + boundary + b"--\r\n")
    return fields


def message(msgid, subject="hello", body="Body \u00e9t\u00e9\r\n"):
    return raw_message(
        msgid,
        to="someone@example.net",
        subject=subject,
        content_type="text/plain; charset=utf-8",
        transfer_encoding="8bit",
        body=body,
        newline="\r\n",
    )


@pytest.fixture(scope="module")
def recorder():
    server = Recorder()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def mailman(recorder):
    with Mailman(recorder.url + "/archive/", KEY) as mm:
        yield mm


def test_the_venv_is_built_once_then_reused():
    venv = ensure_venv()
    assert (venv / "bin" / "mailman").exists() and (venv / ".sathub-ready").exists()
    started = time.monotonic()
    assert ensure_venv() == venv
    assert time.monotonic() - started < 5  # a build takes minutes, a reuse milliseconds: room for a busy machine


def test_the_plugin_archives_a_message(mailman, recorder):
    mailman.create_list("test@example.org", archive_policy="public")
    recorder.take()
    raw = message("m1@example.com")
    assert len(mailman.inject("test@example.org", raw)) == 1
    assert mailman.archive() == {
        "processed": {"in": 1, "pipeline": 1, "archive": 1},
        "remaining": {"in": 0, "pipeline": 0, "archive": 0},
        "shunt": 0,
    }

    calls = recorder.take()
    assert [(method, path) for method, path, _, _ in calls] == [
        # the pipeline's rfc-2369 handler: List-Archive, then Archived-At, both before archiving
        ("GET", "/archive/api/mailman/urls?mlist=test%40example.org"),
        ("GET", "/archive/api/mailman/urls?mlist=test%40example.org&msgid=m1%40example.com"),
        # the archive runner
        ("POST", "/archive/api/mailman/archive"),
    ]
    for _, _, headers, _ in calls:
        assert headers["Authorization"] == f"Token {KEY}"
        assert headers["User-Agent"].startswith("python-requests/")
    assert calls[0][3] == calls[1][3] == b""

    _, _, headers, body = calls[2]
    assert headers["Content-Type"].startswith("multipart/form-data; boundary=")
    fields = multipart(headers, body)
    assert list(fields) == ["mlist", "message"]
    assert fields["mlist"] == (None, {"Content-Disposition": 'form-data; name="mlist"'}, b"test@example.org")
    filename, part_headers, sent = fields["message"]
    assert filename == "message.txt"
    assert part_headers == {"Content-Disposition": 'form-data; name="message"; filename="message.txt"'}
    # Mailman's rendering (msg.as_bytes()): LF line ends, the original headers and body bytes,
    # a subject prefix, its own headers, and the permalink the plugin got from /urls.
    head, _, text = sent.partition(b"\n\n")
    assert text == "Body \u00e9t\u00e9\n".encode()
    lines = head.decode().split("\n")
    for line in raw.split(b"\r\n\r\n")[0].decode().split("\r\n"):
        if not line.startswith("Subject:"):
            assert line in lines
    assert "Subject: [Test] hello" in lines
    assert f"Archived-At: <{ANSWER}>" in lines and f"List-Archive: <{ANSWER}>" in lines
    assert "Message-ID-Hash: 5J5KTB364ZCCSIAFY5LMCNRUVZIAOXYV" in lines  # HyperKitty's hash
    assert "List-Post: <mailto:test@example.org>" in lines

    assert mailman.spooled() == []
    assert mailman.archived_at("<m1@example.com>") == [ANSWER]
    assert "HyperKitty archived message <m1@example.com> to " + ANSWER in mailman.log()

    # the plugin's URLs on demand: the same two GETs
    assert mailman.list_url("test@example.org") == ANSWER
    assert mailman.permalink("test@example.org", message("later@example.com")) == ANSWER
    urls = [(urlsplit(path).path, parse_qs(urlsplit(path).query)) for _, path, _, _ in recorder.take()]
    assert urls == [
        ("/archive/api/mailman/urls", {"mlist": ["test@example.org"]}),
        ("/archive/api/mailman/urls", {"mlist": ["test@example.org"], "msgid": ["later@example.com"]}),
    ]


def test_failures_are_spooled_and_sent_first_with_the_next_message(mailman, recorder):
    mailman.create_list("retry@example.org", archive_policy="public", subject_prefix="")
    recorder.take()

    # the archive answers non-200: the message is spooled, Archived-At is left empty
    recorder.status = 500
    mailman.post("retry@example.org", message("r1@example.com"))
    assert [m for m, _, _, _ in recorder.take()] == ["GET", "GET", "POST"]
    assert [m.message_id for m in mailman.spooled()] == ["<r1@example.com>"]
    assert mailman.archived_at("r1@example.com") == [""]  # Mailman wrote `Archived-At: <>`
    assert "HyperKitty failure on" in mailman.log() and "(500)" in mailman.log()

    # the archive is down (connection refused): spooled too, in order
    mailman.set_archiver(f"http://127.0.0.1:{free_port()}/archive/", KEY)
    assert mailman.post("retry@example.org", message("r2@example.com"))["shunt"] == 0
    assert [m.message_id for m in mailman.spooled()] == ["<r1@example.com>", "<r2@example.com>"]
    assert mailman.spooled()[0].mlist == "retry@example.org"

    # back up (base_url without its final slash: the plugin adds it): running the archive
    # runner with nothing new retries nothing
    recorder.status = 200
    mailman.set_archiver(recorder.url + "/archive", KEY)
    mailman.archive()
    assert recorder.take() == []
    assert len(mailman.spooled()) == 2

    # the next message to archive sends the spool first, oldest first, then itself
    mailman.post("retry@example.org", message("r3@example.com"))
    calls = recorder.take()
    assert {path.split("?")[0] for _, path, _, _ in calls} == {
        "/archive/api/mailman/urls",
        "/archive/api/mailman/archive",
    }
    posts = [multipart(h, b)["message"][2] for m, _, h, b in calls if m == "POST"]
    ids = [next(line for line in p.split(b"\n") if line.startswith(b"Message-ID:")) for p in posts]
    assert ids == [b"Message-ID: <r1@example.com>", b"Message-ID: <r2@example.com>", b"Message-ID: <r3@example.com>"]
    assert b"Archived-At: <>" in posts[0] and b"Subject: hello" in posts[0]  # spooled as rendered then
    assert mailman.spooled() == []


def test_archive_policies(mailman, recorder):
    mailman.create_list("private@example.org", archive_policy="private")
    mailman.create_list("never@example.org", archive_policy="never")
    assert mailman.list_config("never@example.org")["archive_policy"] == "never"
    recorder.take()

    # private: the plugin sends it all the same (the archive reads the policy from Mailman's REST)
    mailman.post("private@example.org", message("p1@example.com"))
    assert [m for m, _, _, _ in recorder.take()] == ["GET", "GET", "POST"]

    # never: no URL asked, nothing posted
    assert mailman.post("never@example.org", message("n1@example.com"))["processed"]["archive"] == 0
    assert recorder.take() == []
    assert mailman.archived_at("n1@example.com") == []

    mailman.set_archive_policy("never@example.org", "public")
    mailman.post("never@example.org", message("n2@example.com"))
    assert [m for m, _, _, _ in recorder.take()] == ["GET", "GET", "POST"]

    # the REST calls sathub's list sync makes (mailmanclient): paginated collections work
    assert mailman.held("never@example.org") == []
    assert {entry["fqdn_listname"] for entry in mailman.rest("GET", "/3.1/lists")["entries"]} >= {
        "private@example.org",
        "never@example.org",
    }
    assert mailman.rest("GET", "/3.1/lists/private.example.org")["display_name"] == "Private"
