"""The archives sathub is measured against, set up from sathub's own exports of the corpus (the
mboxrd of its export door, so every peer reads the same messages with pipermail's "user at host"
already undone): HyperKitty 1.3.12 from PyPI in a virtual environment of its own (never sathub's),
and public-inbox 1.9 from Debian (`apt-get install public-inbox`), its inboxes and PI_CONFIG under
the folder given (the user's ~/.public-inbox is not touched).

    python -m bench.peers check      # what the peers suite needs and this machine lacks (exit 1 if any)
    python -m bench.peers install    # HyperKitty's venv (pip), public-inbox (apt-get, as root)"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.testclient import TestClient

HYPERKITTY_VENV = Path("/tmp/sathub-hyperkitty")
TIMEOUT = 3600  # seconds, for any one setup command (hyperkitty_import of gpsd-dev takes ~10 min)
HYPERKITTY_PACKAGES = ["HyperKitty==1.3.12", "Django==5.0.14", "Whoosh==2.7.4", "gunicorn==23.0.0"]
# HyperKitty's test settings on a SQLite file; the Whoosh index in a folder when one is given (the
# test settings keep it in memory).
SETTINGS = """from hyperkitty.tests.settings_test import *  # noqa

DATABASES["default"]["NAME"] = {database!r}
HAYSTACK_SIGNAL_PROCESSOR = "haystack.signals.BaseSignalProcessor"  # no indexing while importing
ALLOWED_HOSTS = ["127.0.0.1", "testserver"]
"""
WHOOSH_SETTINGS = """HAYSTACK_CONNECTIONS["default"] = {{
    "ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
    "PATH": {path!r},
}}
"""
WSGI = "from django.core.wsgi import get_wsgi_application\n\napplication = get_wsgi_application()\n"
PUBLIC_INBOX_IMPORT = r"""
use strict; use warnings;
use PublicInbox::Config; use PublicInbox::InboxWritable; use PublicInbox::MboxReader;
my ($name, $file) = @ARGV;
my $ibx = PublicInbox::InboxWritable->new(PublicInbox::Config->new->lookup_name($name));
my $im = $ibx->importer(0);
open my $fh, '<', $file or die $!;
my $n = 0;
PublicInbox::MboxReader->mboxrd($fh, sub { $im->add($_[0]) and $n++ });
$im->done;
print "$n\n";
"""


def versions() -> dict[str, str]:
    """The version of each peer installed (HyperKitty's with the packages it runs on)."""
    found = {}
    if shutil.which("dpkg-query"):
        found["public-inbox"] = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "public-inbox"], capture_output=True, text=True
        ).stdout
    python = HYPERKITTY_VENV / "bin" / "python"
    if python.exists():
        found["hyperkitty"] = subprocess.run(
            [
                str(python),
                "-c",
                "import importlib.metadata as m; print(', '.join(p + ' ' + m.version(p) for p in "
                "('HyperKitty', 'Django', 'django-haystack', 'Whoosh', 'gunicorn')))",
            ],
            capture_output=True,
            text=True,
        ).stdout.strip()
    return found


def sathub_export(client: TestClient, name: str) -> tuple[bytes, float, float, float]:
    """(gzip bytes, wall s, CPU s, first byte s) of one export through sathub's door."""
    wall, cpu, first, body = time.monotonic(), time.process_time(), None, b""
    with client.stream("GET", f"/archive/list/{name}/export/{name.split('@')[0]}.mbox.gz") as response:
        assert response.status_code == 200, response.status_code
        for piece in response.iter_raw():
            if first is None and piece:
                first = time.monotonic() - wall
            body += piece
    return body, time.monotonic() - wall, time.process_time() - cpu, first or 0.0


def export_mbox(client: TestClient, name: str, path: Path) -> Path:
    """The list `name` exported through sathub's door, decompressed to `path`."""
    written = path.with_suffix(".partial")
    written.write_bytes(gzip.decompress(sathub_export(client, name)[0]))
    written.replace(path)  # whole or not at all, for a peer that may be reading the earlier one
    return path


def missing(venv: Path = HYPERKITTY_VENV) -> list[str]:
    """What the peer comparisons need and this machine lacks, each with how to get it."""
    lacking = []
    if not shutil.which("public-inbox-httpd"):
        lacking.append("public-inbox 1.9 (Debian's package): apt-get install -y public-inbox")
    elif not any(
        subprocess.run(["perl", f"-M{module}", "-e", "1"], capture_output=True).returncode == 0
        for module in ("Search::Xapian", "Xapian")
    ):
        lacking.append("Xapian's Perl bindings, for public-inbox's search: apt-get install -y libsearch-xapian-perl")
    if not (venv / "bin" / "gunicorn").exists():
        lacking.append(f"HyperKitty 1.3.12 in a venv of its own at {venv}: python -m bench.peers install (pip, PyPI)")
    return lacking


def install(venv: Path = HYPERKITTY_VENV) -> None:
    """HyperKitty's venv (never sathub's), and Debian's public-inbox when this runs as root."""
    if not shutil.which("public-inbox-httpd") and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "public-inbox"], check=True)
    hyperkitty_venv(venv)


def hyperkitty_venv(venv: Path) -> Path:
    """HyperKitty installed in `venv` (on first use): the venv's python."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if not (venv / "bin" / "gunicorn").exists():
        subprocess.run([str(python), "-m", "pip", "install", "-q", *HYPERKITTY_PACKAGES], check=True)
    return python


def hyperkitty(venv: Path, work: Path, *, whoosh: Path | None = None) -> tuple[Path, dict[str, str]]:
    """HyperKitty installed in `venv` (on first use), a fresh migrated database in `work`: the
    venv's python and the environment its Django commands need."""
    python = hyperkitty_venv(venv)
    work.mkdir(parents=True, exist_ok=True)
    settings = SETTINGS.format(database=str(work / "hyperkitty.db"))
    if whoosh is not None:
        shutil.rmtree(whoosh, ignore_errors=True)
        settings += WHOOSH_SETTINGS.format(path=str(whoosh))
    (work / "hk_settings.py").write_text(settings)
    (work / "hk_wsgi.py").write_text(WSGI)
    (work / "hyperkitty.db").unlink(missing_ok=True)
    env = hyperkitty_env(work)
    django_admin(venv, env, "migrate", "-v0")
    return python, env


def hyperkitty_env(work: Path) -> dict[str, str]:
    """The environment HyperKitty's commands and server need for the settings in `work`."""
    return {"PYTHONPATH": str(work), "DJANGO_SETTINGS_MODULE": "hk_settings", "PATH": "/usr/bin:/bin"}


def django_admin(venv: Path, env: dict[str, str], *arguments: str, log: Path | None = None) -> float:
    """Seconds one `django-admin` command of HyperKitty's took (its output in `log`, when given)."""
    started = time.monotonic()
    command = [str(venv / "bin" / "django-admin"), *arguments]
    if log is None:
        subprocess.run(command, env=env, check=True, capture_output=True, timeout=TIMEOUT)
    else:
        with open(log, "wb") as out:
            subprocess.run(command, env=env, check=True, stdout=out, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    return time.monotonic() - started


def hyperkitty_import(venv: Path, env: dict[str, str], name: str, mbox: Path) -> float:
    """Seconds `hyperkitty_import` took to archive `mbox` as the list `name`."""
    return django_admin(
        venv,
        env,
        *("hyperkitty_import", "--no-sync-mailman", "--ignore-mtime", "-l", name, str(mbox)),
        log=mbox.with_suffix(".log"),
    )


def public_inbox(
    folder: Path, inbox: str, address: str, mbox: Path, env: dict[str, str], *, level: str = "medium"
) -> int:
    """A fresh v2 inbox `inbox` of the list `address` in `folder` (its PI_CONFIG in `env`), holding
    the mboxrd `mbox`, indexed for search (Xapian at `level`: "full" adds the positions phrase
    searches need); returns the messages it took."""
    shutil.rmtree(folder / inbox, ignore_errors=True)
    subprocess.run(
        ["public-inbox-init", "-V2", "-L", level, inbox, str(folder / inbox), f"http://127.0.0.1/{inbox}", address],
        env=env,
        check=True,
        capture_output=True,
        timeout=TIMEOUT,
    )
    added = subprocess.run(
        ["perl", "-e", PUBLIC_INBOX_IMPORT, inbox, str(mbox)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    subprocess.run(
        ["public-inbox-index", str(folder / inbox)], env=env, check=True, capture_output=True, timeout=TIMEOUT
    )
    return int(added.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["check", "install"])
    if parser.parse_args().command == "install":
        install()
    lacking = missing()
    print("\n".join(f"missing: {what}" for what in lacking) or "public-inbox and HyperKitty are installed")
    return 1 if lacking else 0


if __name__ == "__main__":
    sys.exit(main())
