"""Run INSIDE Mailman's own virtual environment (never imported by sathub's tests).

    python mailman_tool.py CONFIG inject LIST FILE...   put raw messages into the list's `in` queue
    python mailman_tool.py CONFIG post LIST FILE...     inject them, then `run`, in one process
    python mailman_tool.py CONFIG run [QUEUE ...]     run the queue runners once each, in order, until empty
    python mailman_tool.py CONFIG dump QUEUE|DIR      the messages waiting in a queue (or a queue directory)
    python mailman_tool.py CONFIG list-url LIST       what the list's archivers answer for list_url()
    python mailman_tool.py CONFIG permalink LIST FILE what they answer for permalink() of the message in FILE

Every command prints one JSON document on stdout. The runners are Mailman's own classes, built as
`runner -r NAME --once` builds them (mailman.bin.runner.make_runner), all in one process to save
Mailman's start-up time per runner.
"""

import base64
import json
import os
import pickle
import sys

DEFAULT_QUEUES = ("in", "pipeline", "archive")


def _queue_files(name):
    from mailman.config import config

    return [f for f in os.listdir(config.switchboards[name].queue_directory) if f.endswith(".pck")]


def inject(address, paths):
    """What `mailman inject -f FILE LIST` does (mailman.app.inject.inject_text), but reading the
    file as bytes: the command decodes it as UTF-8 first, which 8-bit mail in other charsets fails."""
    from mailman.app.inject import inject_text
    from mailman.interfaces.listmanager import IListManager
    from zope.component import getUtility

    mlist = getUtility(IListManager).get(address)
    if mlist is None:
        raise SystemExit(f"no such list: {address}")
    filebases = []
    for path in paths:
        with open(path, "rb") as fp:
            filebases.append(inject_text(mlist, fp.read()))
    return filebases


def run(queues, max_passes=20):
    from mailman.bin.runner import make_runner

    queues = queues or list(DEFAULT_QUEUES)
    processed = dict.fromkeys(queues, 0)
    for _ in range(max_passes):
        if not any(_queue_files(name) for name in queues):
            break
        for name in queues:
            waiting = len(_queue_files(name))
            if waiting:
                make_runner(name, 1, 1, once=True).run()
                processed[name] += waiting - len(_queue_files(name))
    return {
        "processed": processed,
        "remaining": {name: len(_queue_files(name)) for name in queues},
        "shunt": len(_queue_files("shunt")),
    }


def dump(queue):
    from mailman.config import config
    from mailman.core.switchboard import Switchboard

    if os.sep in queue:
        board = Switchboard(os.path.basename(queue), queue, recover=False)
    else:
        board = config.switchboards[queue]
    out = []
    for filebase in board.files:  # sorted: oldest first
        with open(os.path.join(board.queue_directory, filebase + ".pck"), "rb") as fp:
            msg = pickle.load(fp)
            data = pickle.load(fp)
        mlist = data.get("mlist")
        out.append(
            {
                "filebase": filebase,
                "listid": data.get("listid"),
                "mlist": getattr(mlist, "fqdn_listname", None),
                "message_id": msg.get("Message-Id"),
                "archived_at": msg.get_all("Archived-At") or [],
                "list_archive": msg.get_all("List-Archive") or [],
                "raw": base64.b64encode(msg.as_bytes()).decode("ascii"),
            }
        )
    return out


def _archivers(address):
    from mailman.interfaces.listmanager import IListManager
    from mailman.interfaces.mailinglist import IListArchiverSet
    from zope.component import getUtility

    mlist = getUtility(IListManager).get(address)
    if mlist is None:
        raise SystemExit(f"no such list: {address}")
    return mlist, [a for a in IListArchiverSet(mlist).archivers if a.is_enabled]


def list_url(address):
    mlist, archivers = _archivers(address)
    return {a.name: a.system_archiver.list_url(mlist) for a in archivers}


def permalink(address, path):
    from email import message_from_binary_file

    from mailman.email.message import Message

    mlist, archivers = _archivers(address)
    with open(path, "rb") as fp:
        msg = message_from_binary_file(fp, Message)
    return {a.name: a.system_archiver.permalink(mlist, msg) for a in archivers}


def main(argv):
    from mailman.core.initialize import initialize

    config_file, command, *args = argv
    initialize(config_file)
    if command == "inject":
        result = inject(args[0], args[1:])
    elif command == "post":
        injected = inject(args[0], args[1:])
        result = dict(run([]), injected=injected)
    elif command == "run":
        result = run(args)
    elif command == "dump":
        result = dump(args[0])
    elif command == "list-url":
        result = list_url(args[0])
    elif command == "permalink":
        result = permalink(args[0], args[1])
    else:
        raise SystemExit(f"unknown command {command!r}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
