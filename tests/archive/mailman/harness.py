"""The real Mailman 3.3.10 with the real mailman-hyperkitty 1.2.1 plugin, driven from sathub's tests.

Mailman pins old dependencies, so it lives in its own virtual environment, built once from PyPI
and cached outside the work tree (`mailman_venv()`); this module never imports mailman. What runs
inside that environment goes through Mailman's own `runner -r rest` (the REST API) and
`mailman_tool.py` beside this file, run by the venv's python: injection (what `mailman inject`
does), the `in`/`pipeline`/`archive` runners (as `runner -r NAME --once` builds them), queue
dumps and the plugin's URLs.

    venv = ensure_venv()                                   # ~12 s the first time, ~1 ms after
    with Mailman("http://127.0.0.1:8000/archive/", api_key="k") as mm:   # REST runner up
        mm.create_list("test@example.org", archive_policy="public")
        mm.inject("test@example.org", raw_bytes)           # into Mailman's `in` queue
        mm.archive()                                       # in -> pipeline -> archive runners
        mm.post("test@example.org", raw1, raw2)            # both at once, one process
        mm.spooled()                                       # plugin's retry queue (failed POSTs)
        mm.permalink("test@example.org", raw_bytes)        # what the plugin answers for Archived-At

Environment: SATHUB_MAILMAN_VENV (where the venv lives), SATHUB_MAILMAN_PYTHON (the interpreter to
build it with, default the system python3.11).
"""

from __future__ import annotations

import atexit
import base64
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from tests.live_server import free_port

MAILMAN_VERSION = "3.3.10"
PLUGIN_VERSION = "1.2.1"
# Everything the two need, pinned to a set that installs and runs on Python 3.11 (what pip
# resolves from PyPI, with three held back to Mailman 3.3.10's time, October 2024):
# - SQLAlchemy 2.0.x: 2.1 breaks Mailman's paginated REST collections (GET /3.1/lists,
#   .../held: "FROM expression ... expected, got Select" -> 500);
# - falcon 3.1.3: falcon 4 came out after Mailman 3.3.10;
# - gunicorn 23.0.0: gunicorn 27 opens a control socket at ~/.gunicorn/gunicorn.ctl, shared by
#   every REST runner of the machine.
# Changing a pin changes the cache key, so the venv is rebuilt.
REQUIREMENTS = (
    f"mailman=={MAILMAN_VERSION}",
    f"mailman-hyperkitty=={PLUGIN_VERSION}",
    "SQLAlchemy==2.0.58",
    "greenlet==3.5.6",
    "falcon==3.1.3",
    "gunicorn==23.0.0",
    "packaging==26.3",
    "aiosmtpd==1.4.6",
    "alembic==1.20.1",
    "atpublic==9.0.0",
    "attrs==26.1.0",
    "authheaders==0.16.3",
    "authres==1.2.0",
    "certifi==2026.10.19.post1",
    "charset-normalizer==3.5.2",
    "click==8.5.1",
    "dkimpy==1.1.8",
    "dnspython==2.9.2",
    "flufl.bounce==6.0.0",
    "flufl.i18n==8.0.0",
    "flufl.lock==10.0.0",
    "idna==3.20",
    "lazr.config==4.0.0",
    "lazr.delegates==4.0.0",
    "Mako==1.4.3",
    "MarkupSafe==3.0.4",
    "passlib==1.7.4",
    "psutil==7.2.2",
    "publicsuffix2==2.20191221",
    "python-dateutil==4.0.0",
    "requests==2.34.2",
    "typing_extensions==4.16.0",
    "tzdata==2026.6",
    "urllib3==2.8.0",
    "zope.component==7.1",
    "zope.configuration==7.1",
    "zope.event==6.2",
    "zope.hookable==8.4",
    "zope.i18nmessageid==8.4",
    "zope.interface==8.7",
    "zope.schema==8.1",
)
TOOL = Path(__file__).with_name("mailman_tool.py")
READY = ".sathub-ready"


def _python() -> str:
    for candidate in (os.environ.get("SATHUB_MAILMAN_PYTHON"), "/usr/bin/python3.11", shutil.which("python3.11")):
        if candidate and Path(candidate).exists():
            return candidate
    return sys.executable


def mailman_venv() -> Path:
    """Where the cached environment lives: keyed on the versions and the pins."""
    if os.environ.get("SATHUB_MAILMAN_VENV"):
        return Path(os.environ["SATHUB_MAILMAN_VENV"])
    key = hashlib.sha1("\n".join(REQUIREMENTS).encode()).hexdigest()[:8]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "sathub" / f"mailman-{MAILMAN_VERSION}-hk-{PLUGIN_VERSION}-{key}"


def ensure_venv(path: Path | None = None, *, python: str | None = None) -> Path:
    """Mailman's virtual environment, created on first use (locked: parallel workers build it
    once) and reused after; a half-built one (no ready marker) is rebuilt from scratch."""
    path = Path(path or mailman_venv())
    marker = path / READY
    spec = "\n".join(REQUIREMENTS)
    if marker.exists() and marker.read_text() == spec:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists() and marker.read_text() == spec:
            return path
        shutil.rmtree(path, ignore_errors=True)
        subprocess.run([python or _python(), "-m", "venv", str(path)], check=True)
        env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONWARNINGS="ignore")
        result = subprocess.run(
            [str(path / "bin" / "python"), "-m", "pip", "install", "-q", *REQUIREMENTS],
            check=False,
            env=env,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise RuntimeError(f"installing Mailman failed:\n{result.stdout}\n{result.stderr}")
        marker.write_text(spec)
    return path


MAILMAN_CFG = """\
[mailman]
layout: sathub
site_owner: {site_owner}

[paths.sathub]
var_dir: {var_dir}

[database]
class: mailman.database.sqlite.SQLiteDatabase
url: sqlite:///{var_dir}/mailman.db

[mta]
incoming: mailman.mta.null.NullMTA
outgoing: mailman.mta.deliver.deliver
smtp_host: 127.0.0.1
smtp_port: {smtp_port}
lmtp_host: 127.0.0.1
lmtp_port: {lmtp_port}

[webservice]
hostname: 127.0.0.1
port: {rest_port}
admin_user: {rest_user}
admin_pass: {rest_password}
workers: 1

[logging.root]
level: info

[logging.archiver]
level: debug

[archiver.hyperkitty]
class: mailman_hyperkitty.Archiver
enable: yes
configuration: {plugin_cfg}
clobber_date: {clobber_date}
"""

PLUGIN_CFG = """\
[general]
base_url: {base_url}
api_key: {api_key}
"""

# List settings that keep a test message on its way to the archive: the sender is no member,
# corpus mail is addressed to another list and may be big or have many recipients.
PERMISSIVE = {
    "default_nonmember_action": "accept",
    "default_member_action": "accept",
    "require_explicit_destination": "false",
    "max_message_size": "0",
    "max_num_recipients": "0",
    "administrivia": "false",
}


@dataclass
class QueuedMessage:
    filebase: str
    mlist: str | None
    message_id: str | None
    archived_at: list[str]
    list_archive: list[str]
    raw: bytes


class Mailman:
    """One Mailman site in a temporary directory, archiving into `base_url` with the plugin."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        workdir: str | Path | None = None,
        venv: Path | None = None,
        rest_port: int | None = None,
        clobber_date: str = "never",
        rest_user: str = "restadmin",
        rest_password: str = "restpass",
        site_owner: str = "postmaster@example.org",
    ):
        self.venv = Path(venv) if venv else ensure_venv()
        self._tmp = None if workdir else tempfile.TemporaryDirectory(prefix="sathub-mailman-")
        self.workdir = Path(workdir or self._tmp.name)
        self.var_dir = self.workdir / "var"
        self.config_file = self.workdir / "mailman.cfg"
        self.plugin_config_file = self.workdir / "mailman-hyperkitty.cfg"
        self.rest_port = rest_port or free_port()
        self.rest_user, self.rest_password = rest_user, rest_password
        self.rest_url = f"http://127.0.0.1:{self.rest_port}"  # the root, without a version
        self._rest: subprocess.Popen | None = None
        self.var_dir.mkdir(parents=True, exist_ok=True)
        self.set_archiver(base_url, api_key)
        self.config_file.write_text(
            MAILMAN_CFG.format(
                site_owner=site_owner,
                var_dir=self.var_dir,
                smtp_port=free_port(),
                lmtp_port=free_port(),
                rest_port=self.rest_port,
                rest_user=rest_user,
                rest_password=rest_password,
                plugin_cfg=self.plugin_config_file,
                clobber_date=clobber_date,
            )
        )

    # -- where things are ------------------------------------------------------------------
    @property
    def spool_dir(self) -> Path:
        """The plugin's retry queue: messages whose POST failed wait here as Mailman queue
        files (`<time>+<hash>.pck`) until the next message is archived."""
        return self.var_dir / "archives" / "hyperkitty" / "spool"

    def queue_dir(self, name: str) -> Path:
        return self.var_dir / "queue" / name

    @property
    def log_file(self) -> Path:
        return self.var_dir / "logs" / "mailman.log"

    def log(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def set_archiver(self, base_url: str, api_key: str) -> None:
        """(Re)write mailman-hyperkitty.cfg; every later Mailman process reads the new one."""
        self.base_url, self.api_key = base_url, api_key
        self.plugin_config_file.write_text(PLUGIN_CFG.format(base_url=base_url, api_key=api_key))

    # -- processes ---------------------------------------------------------------------------
    def _env(self) -> dict:
        return dict(os.environ, MAILMAN_CONFIG_FILE=str(self.config_file), PYTHONWARNINGS="ignore")

    def _run(self, *args: str, timeout: float = 120) -> str:
        result = subprocess.run(
            list(args), check=False, env=self._env(), capture_output=True, text=True, timeout=timeout, cwd=self.workdir
        )
        if result.returncode != 0:
            raise RuntimeError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def mailman(self, *args: str) -> str:
        """`mailman -C mailman.cfg ARGS...`, its standard output."""
        root = ["--run-as-root"] if os.geteuid() == 0 else []  # CI runs as root; Mailman refuses else
        return self._run(str(self.venv / "bin" / "mailman"), "-C", str(self.config_file), *root, *args)

    def tool(self, *args: str):
        out = self._run(str(self.venv / "bin" / "python"), str(TOOL), str(self.config_file), *args)
        return json.loads(out)

    def start(self, timeout: float = 60) -> Self:
        """Start Mailman's REST runner (the only long-running part the tests need; the queue
        runners run on demand in `archive()`), and wait until it answers."""
        if self._rest is None:
            with open(self.workdir / "rest.out", "ab") as log:
                self._rest = subprocess.Popen(
                    [str(self.venv / "bin" / "runner"), "-C", str(self.config_file), "-r", "rest"],
                    env=self._env(),
                    cwd=self.workdir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            atexit.register(self.stop)  # no REST runner outlives the tests
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.rest("GET", "/3.1/system/versions")
                return self
            except (OSError, urllib.error.URLError) as error:
                if self._rest.poll() is not None or time.monotonic() > deadline:
                    output = (self.workdir / "rest.out").read_text(errors="replace")
                    self.stop()
                    raise RuntimeError(f"Mailman's REST runner did not start:\n{output}") from error
                time.sleep(0.1)

    def stop(self) -> None:
        atexit.unregister(self.stop)
        if self._rest is not None:
            process, self._rest = self._rest, None
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(5)

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- REST --------------------------------------------------------------------------------
    def rest(self, method: str, path: str, data: dict | None = None):
        """One call to Mailman's REST API (form-encoded body, basic auth); the JSON answer,
        or None for an empty one. HTTP errors raise urllib.error.HTTPError."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.rest_url + path, data=body, method=method)
        token = base64.b64encode(f"{self.rest_user}:{self.rest_password}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
        return json.loads(text) if text else None

    def create_domain(self, mail_host: str) -> None:
        try:
            self.rest("POST", "/3.1/domains", {"mail_host": mail_host})
        except urllib.error.HTTPError as error:
            if error.code != 400:  # 400: it exists already
                raise

    def create_list(
        self, address: str, *, archive_policy: str = "public", permissive: bool = True, **settings: str
    ) -> dict:
        """Create the list (and its domain) and configure it; `settings` are more attributes of
        `/3.1/lists/<address>/config` (display_name, description, subject_prefix, ...)."""
        self.create_domain(address.split("@", 1)[1])
        self.rest("POST", "/3.1/lists", {"fqdn_listname": address})
        values = dict(PERMISSIVE if permissive else {}, archive_policy=archive_policy, **settings)
        self.configure_list(address, **values)
        return self.list_config(address)

    def configure_list(self, address: str, **settings: str) -> None:
        self.rest("PATCH", f"/3.1/lists/{address}/config", {k: str(v) for k, v in settings.items()})

    def set_archive_policy(self, address: str, policy: str) -> None:
        """`public`, `private` or `never`."""
        self.configure_list(address, archive_policy=policy)

    def list_config(self, address: str) -> dict:
        return self.rest("GET", f"/3.1/lists/{address}/config")

    def held(self, address: str) -> list[dict]:
        """Messages Mailman held for moderation instead of distributing (and archiving) them."""
        return self.rest("GET", f"/3.1/lists/{address}/held").get("entries", [])

    # -- mail --------------------------------------------------------------------------------
    def _with_files(self, command: str, address: str, messages) -> dict | list:
        paths = []
        try:
            for message in messages:
                if isinstance(message, Path):
                    paths.append(message)
                    continue
                data = message.encode() if isinstance(message, str) else message
                with tempfile.NamedTemporaryFile(dir=self.workdir, suffix=".eml", delete=False) as fp:
                    fp.write(data)
                paths.append(Path(fp.name))
            return self.tool(command, address, *map(str, paths))
        finally:
            for path in paths:
                if path.parent == self.workdir:
                    path.unlink(missing_ok=True)

    def inject(self, address: str, *messages: bytes | str | Path) -> list[str]:
        """Put raw RFC 5322 messages into the list's `in` queue, in order, as `mailman inject`
        does (mailman.app.inject.inject_text; the bytes as given). Returns the queue file names."""
        return self._with_files("inject", address, messages)

    def archive(self, queues: tuple[str, ...] = ("in", "pipeline", "archive")) -> dict:
        """Run Mailman's `in`, `pipeline` and `archive` runners once each, in turn, until their
        queues are empty: the plugin calls `<base_url>api/mailman/urls` from the pipeline and
        POSTs to `<base_url>api/mailman/archive` from the archive runner (after retrying its
        spool). Returns {"processed": {queue: n}, "remaining": {queue: n}, "shunt": n} (shunt:
        messages a runner failed on, see `queue("shunt")` and `log()`)."""
        return self.tool("run", *queues)

    def post(self, address: str, *messages: bytes | str | Path) -> dict:
        """`inject` then `archive`, in one Mailman process (saves ~0.6 s of start-up); the
        `archive` result plus "injected"."""
        return self._with_files("post", address, messages)

    def queue(self, name_or_dir: str | Path) -> list[QueuedMessage]:
        """The messages waiting in a Mailman queue (`out`, `archive`, `shunt`, `bad`, ...) or a
        queue directory (e.g. `spool_dir`), oldest first. Mailman never delivers in these
        tests, so `queue("out")` holds each distributed copy with its Archived-At header."""
        if isinstance(name_or_dir, Path) and not name_or_dir.is_dir():
            return []
        rows = self.tool("dump", str(name_or_dir))
        return [
            QueuedMessage(
                row["filebase"],
                row["mlist"],
                row["message_id"],
                row["archived_at"],
                row["list_archive"],
                base64.b64decode(row["raw"]),
            )
            for row in rows
        ]

    def spooled(self) -> list[QueuedMessage]:
        """The plugin's retry queue (messages whose archiving failed), oldest first."""
        return self.queue(self.spool_dir)

    def permalink(self, address: str, message: bytes | str) -> str:
        """What the plugin answers for Mailman's permalink(): the `Archived-At` URL, computed by
        `GET <base_url>api/mailman/urls?mlist=…&msgid=…` ('' when that call fails)."""
        data = message.encode() if isinstance(message, str) else message
        with tempfile.NamedTemporaryFile(dir=self.workdir, suffix=".eml") as fp:
            fp.write(data)
            fp.flush()
            return self.tool("permalink", address, fp.name)["hyperkitty"]

    def list_url(self, address: str) -> str:
        """What the plugin answers for list_url() (`List-Archive`): `GET …urls?mlist=…`."""
        return self.tool("list-url", address)["hyperkitty"]

    def archived_at(self, message_id: str) -> list[str]:
        """The Archived-At URL(s) (brackets removed) Mailman wrote into the distributed copy of
        a message: '' when the plugin's urls call failed (Mailman then writes `Archived-At: <>`)."""
        wanted = message_id.strip().strip("<>")
        return [
            url.strip().strip("<>")
            for queued in self.queue("out")
            if (queued.message_id or "").strip().strip("<>") == wanted
            for url in queued.archived_at
        ]
