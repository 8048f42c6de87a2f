"""What HyperKitty 1.3.12 answers after it deletes a message, a thread's first message, a thread
and a list: the reference sathub's removal (issue 36) matches, written up in
docs/archive-removal-hyperkitty.md.

    python -m bench.hyperkitty_removal [--venv /tmp/sathub-hyperkitty]

HyperKitty in its own venv (bench.peers), a fresh SQLite database in `<venv>/removal`, three lists
imported with `hyperkitty_import` from a small mbox: thread A <- B <- C, A <- D; thread E <- F; G
alone, by a sender who writes nothing else (so only removal@ has G). Then, through HyperKitty's
own delete views (POSTs by a staff user, Django's test client, mounted under /hyperkitty/ as
mailman-web mounts it), in turn: B, A, thread E, G, the whole list removal@; kept@ is never
touched, newest@ loses its thread's newest message (date_active). After each step it prints what
the REST API and the HTML pages answer, and the rows behind them.
Takes ~10 s once the venv exists.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from bench.peers import HYPERKITTY_VENV, hyperkitty, hyperkitty_import

LISTS = ("removal@example.com", "kept@example.com", "newest@example.com")
# (letter, sender, parent letter, subject, day of January 2024); a sender's mailman_id is "mm-<sender>".
MESSAGES = (
    ("A", "alice", None, "Topic A", 1),
    ("B", "bob", "A", "Re: Topic A", 2),
    ("C", "carol", "B", "Re: Topic A", 3),
    ("D", "dave", "A", "Re: Topic A", 4),
    ("E", "erin", None, "Topic E", 5),
    ("F", "bob", "E", "Re: Topic E", 6),
    ("G", "gina", None, "Lone G", 7),
)
URLS = """from django.urls import include, path

urlpatterns = [
    path("hyperkitty/", include("hyperkitty.urls")),
    path("", include("django_mailman3.urls")),
    path("accounts/", include("allauth.urls")),
]
"""
SETTINGS = 'from hk_settings import *  # noqa\n\nROOT_URLCONF = "hk_removal_urls"\n'
OBSERVE = r"""import json, sys
import django
django.setup()
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.test.utils import setup_test_environment
from hyperkitty.models import Email, MailingList, Sender, Thread
setup_test_environment()  # the test client's host allowed

LIST, KEPT, NEWEST = sys.argv[1:4]
LETTERS = sys.argv[4]
API = "/hyperkitty/api"
staff = Client(raise_request_exception=False)
staff.force_login(User.objects.create_user("staff", "staff@example.com", "x", is_staff=True))
reader = Client(raise_request_exception=False)
reader.force_login(User.objects.create_user("reader", "reader@example.com", "x"))
anonymous = Client(raise_request_exception=False)
for sender in Sender.objects.all():
    sender.mailman_id = "mm-" + sender.address.split("@")[0]
    sender.save()
HASH = {
    f"{name}:{e.message_id[0].upper()}": e.message_id_hash
    for name in (LIST, KEPT, NEWEST) for e in Email.objects.filter(mailinglist__name=name)}
LETTER = {h: k.split(":")[1] for k, h in HASH.items()}
THREAD_OF = {
    f"{e.mailinglist.name}:{e.message_id[0].upper()}": e.thread.thread_id for e in Email.objects.all()}


def short(url):
    # An API link to an email or thread: the letter of the message its hash names.
    return None if url is None else LETTER.get(url.rstrip("/").split("/")[-1], url)


def get(client, path):
    response = client.get(path)
    kind = response.get("Content-Type", "")
    body = response.content.decode() if not getattr(response, "streaming", False) else ""
    return response.status_code, kind, (json.loads(body) if "json" in kind else body)


def show(label, path, pick=None, client=anonymous):
    status, kind, body = get(client, path)
    if status >= 300 or pick is None:
        shown = json.dumps(body) if "json" in kind else body.strip()[:160].replace("\n", " ")
    else:
        shown = json.dumps(pick(body))
    print(f"  {label}: GET {path} -> {status} {kind} {shown}")


def email_fields(body):
    return {k: (short(v) if k in ("parent", "thread") else v) for k, v in body.items()
            if k in ("message_id_hash", "subject", "parent", "thread", "sender_name")} | {
        "children": [short(c) for c in body["children"]]}


def thread_fields(body):
    # The listing's threads have no participants_count; the thread's own answer has.
    return {"thread_id": body["thread_id"], "subject": body["subject"], "date_active": body["date_active"],
            "starting_email": short(body["starting_email"]), "replies_count": body["replies_count"]} | {
        k: body[k] for k in ("participants_count",) if k in body}


def emails_fields(body):
    return [{"email": LETTER[e["message_id_hash"]], "parent": short(e["parent"]),
             "children": [short(c) for c in e["children"]]} for e in body]


def threads_fields(body):
    return [thread_fields(t) for t in body]


def rows(name):
    # What the API does not show: thread_order and thread_depth, and the thread's starting email.
    for thread in Thread.objects.filter(mailinglist__name=name).order_by("id"):
        start = thread.starting_email and LETTER[thread.starting_email.message_id_hash]
        emails = [f"{LETTER[e.message_id_hash]}(parent={e.parent and LETTER[e.parent.message_id_hash]},"
                  f" order={e.thread_order}, depth={e.thread_depth})"
                  for e in thread.emails.order_by("thread_order")]
        print(f"  rows {name} thread {thread.thread_id}: starting_email={start},"
              f" date_active={thread.date_active.isoformat()}, emails: {', '.join(emails)}")
    count = Email.objects.filter(mailinglist__name=name).count()
    print(f"  rows {name}: {count} emails, {Thread.objects.filter(mailinglist__name=name).count()} threads")


def probe(name, letters, threads, senders):
    for letter in letters:
        show(f"email {letter}", f"{API}/list/{name}/email/{HASH[f'{name}:{letter}']}/", email_fields)
        show(f"page {letter}", f"/hyperkitty/list/{name}/message/{HASH[f'{name}:{letter}']}/", lambda b: "page")
    for letter in threads:
        thread_id = THREAD_OF[f"{name}:{letter}"]
        show(f"thread {letter}", f"{API}/list/{name}/thread/{thread_id}/", thread_fields)
        show(f"thread {letter} emails", f"{API}/list/{name}/thread/{thread_id}/emails/", emails_fields)
        show(f"thread page {letter}", f"/hyperkitty/list/{name}/thread/{thread_id}/", lambda b: "page")
    show("threads", f"{API}/list/{name}/threads/", threads_fields)
    show("list", f"{API}/list/{name}/", lambda b: {k: b[k] for k in ("name", "archive_policy")})
    show("list emails", f"{API}/list/{name}/emails/?limit=1", lambda b: {"count": b["count"]})
    show("list page", f"/hyperkitty/list/{name}/", lambda b: "page")
    for sender in senders:
        show(f"sender {sender}", f"{API}/sender/mm-{sender}/emails/",
             lambda b: [f"{e['mailinglist'].rstrip('/').split('/')[-1]}:{LETTER[e['message_id_hash']]}" for e in b])
    rows(name)


def delete(path, letters, name=LIST):
    pks = [Email.objects.get(mailinglist__name=name, message_id_hash=HASH[f"{name}:{x}"]).pk for x in letters]
    response = staff.post(path, {"email": pks}) if letters else staff.post(path)
    print(f"  POST {path} (staff) -> {response.status_code} Location: {response.get('Location')}")
    return pks


def repeat(path, pks):
    response = staff.post(path, {"email": pks})
    text = response.content.decode().strip()[:100].replace("\n", " ")
    print(f"  POST {path} again (staff) -> {response.status_code} {response.get('Content-Type')} {text}")


def step(title):
    print(f"\n## {title}")


step("permissions (before any deletion)")
message_delete = f"/hyperkitty/list/{LIST}/message/{HASH[f'{LIST}:B']}/delete"
thread_delete = f"/hyperkitty/list/{LIST}/thread/{THREAD_OF[f'{LIST}:E']}/delete"
list_delete = f"/hyperkitty/list/{LIST}/delete/"
for path in (message_delete, thread_delete, list_delete):
    for label, client in (("anonymous", anonymous), ("reader", reader), ("staff", staff)):
        # The staff's POST is the deletion itself, made step by step below.
        for method in ("get",) if client is staff else ("get", "post"):
            response = getattr(client, method)(path)
            text = response.content.decode().strip()[:100].replace("\n", " ")
            print(f"  {method.upper()} {path} ({label}) -> {response.status_code} {response.get('Content-Type')}"
                  f" Location: {response.get('Location')} body: {text if response.status_code == 403 else '...'}")
strict = Client(enforce_csrf_checks=True)
strict.force_login(User.objects.get(username="staff"))
response = strict.post(message_delete, {"email": [1]})
print(f"  POST {message_delete} (staff, no CSRF token) -> {response.status_code} {response.get('Content-Type')}")
show("unknown email", f"{API}/list/{LIST}/email/NOSUCHHASH/", email_fields)
show("unknown thread", f"{API}/list/{LIST}/thread/NOSUCHTHREAD/", thread_fields)

step("before: all of removal@ (the API's caches warmed by these reads)")
probe(LIST, LETTERS, "AEG", ["alice", "bob", "gina"])

step("after deleting B (a middle message: A <- B <- C)")
deleted = delete(message_delete, "B")
probe(LIST, "BC", "A", ["bob"])
repeat(message_delete, deleted)

step("after deleting A (the thread's first message, with replies C and D)")
delete(f"/hyperkitty/list/{LIST}/message/{HASH[f'{LIST}:A']}/delete", "A")
probe(LIST, "ACD", "A", ["alice"])
show("email C (whole answer)", f"{API}/list/{LIST}/email/{HASH[f'{LIST}:C']}/")
show("thread A (whole answer)", f"{API}/list/{LIST}/thread/{THREAD_OF[f'{LIST}:A']}/")
print("  (cache cleared: what a fresh process answers)")
cache.clear()
probe(LIST, "", "A", [])

step("after deleting thread E (E and F, the thread delete view)")
delete(thread_delete, "EF")
probe(LIST, "EF", "E", ["erin", "bob"])

step("after deleting G (the only message of its sender, alone in its thread)")
delete(f"/hyperkitty/list/{LIST}/message/{HASH[f'{LIST}:G']}/delete", "G")
probe(LIST, "G", "G", ["gina"])
show("sender gina by address", f"{API}/sender/gina@example.com/emails/")
show("unknown sender", f"{API}/sender/mm-nobody/emails/")
print(f"  rows: sender gina kept: {Sender.objects.filter(address='gina@example.com').exists()}")

step("after deleting the list removal@")
delete(list_delete, "")
probe_paths = [
    ("email C", f"{API}/list/{LIST}/email/{HASH[f'{LIST}:C']}/"),
    ("thread A", f"{API}/list/{LIST}/thread/{THREAD_OF[f'{LIST}:A']}/"),
    ("thread A emails", f"{API}/list/{LIST}/thread/{THREAD_OF[f'{LIST}:A']}/emails/"),
    ("threads", f"{API}/list/{LIST}/threads/"),
    ("list emails", f"{API}/list/{LIST}/emails/"),
    ("list", f"{API}/list/{LIST}/"),
    ("page C", f"/hyperkitty/list/{LIST}/message/{HASH[f'{LIST}:C']}/"),
    ("thread page A", f"/hyperkitty/list/{LIST}/thread/{THREAD_OF[f'{LIST}:A']}/"),
    ("list page", f"/hyperkitty/list/{LIST}/"),
]
for label, path in probe_paths:
    show(label, path)
show("lists", f"{API}/lists/", lambda b: [m["name"] for m in b])
for sender in ("alice", "bob", "carol", "dave", "erin", "gina"):
    show(f"sender {sender}", f"{API}/sender/mm-{sender}/emails/",
         lambda b: [f"{e['mailinglist'].rstrip('/').split('/')[-1]}:{LETTER[e['message_id_hash']]}" for e in b])
print(f"  rows: {MailingList.objects.filter(name=LIST).count()} lists named {LIST},"
      f" {Sender.objects.count()} senders, {Email.objects.count()} emails in all lists")

step("kept@ (never touched): thread A as imported")
probe(KEPT, "", "A", [])

step("newest@: deleting D, the newest message of thread A (does date_active follow?)")
delete(f"/hyperkitty/list/{NEWEST}/message/{HASH[f'{NEWEST}:D']}/delete", "D", NEWEST)
show("thread A", f"{API}/list/{NEWEST}/thread/{THREAD_OF[f'{NEWEST}:A']}/", thread_fields)
rows(NEWEST)
"""


def mbox(messages: tuple[tuple[str, str, str | None, str, int], ...]) -> str:
    """The messages, each Message-ID <letter@removal.test>, In-Reply-To its parent."""
    parts = []
    for letter, sender, parent, subject, day in messages:
        reply = "" if parent is None else f"In-Reply-To: <{parent.lower()}@removal.test>\n"
        parts.append(
            f"From {sender}@example.com Mon Jan  {day} 10:00:00 2024\n"
            f"From: {sender.title()} <{sender}@example.com>\n"
            f"Subject: {subject}\nDate: Mon, 0{day} Jan 2024 10:00:00 +0000\n"
            f"Message-ID: <{letter.lower()}@removal.test>\n{reply}\n"
            f"Body of {letter}.\n\n"
        )
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=HYPERKITTY_VENV)
    args = parser.parse_args()
    work = args.venv / "removal"
    python, env = hyperkitty(args.venv, work)
    (work / "hk_removal_urls.py").write_text(URLS)
    (work / "hk_removal_settings.py").write_text(SETTINGS)
    (work / "removal.mbox").write_text(mbox(MESSAGES))
    hyperkitty_import(args.venv, env, LISTS[0], work / "removal.mbox")
    (work / "others.mbox").write_text(mbox(MESSAGES[:-1]))  # G's sender writes nowhere else
    for name in LISTS[1:]:
        hyperkitty_import(args.venv, env, name, work / "others.mbox")
    letters = "".join(letter for letter, *_ in MESSAGES)
    observed = subprocess.run(
        [str(python), "-c", OBSERVE, *LISTS, letters],
        env=env | {"DJANGO_SETTINGS_MODULE": "hk_removal_settings"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    # HyperKitty's test settings log every 404 and task to stderr: shown only when the run fails.
    print(observed.stdout, end="")
    if observed.returncode:
        sys.exit(observed.stderr)


if __name__ == "__main__":
    main()
