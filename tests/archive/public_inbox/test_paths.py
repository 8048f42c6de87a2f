"""public-inbox's URL forms read from the path as sent."""

from __future__ import annotations

import pytest

from sathub.archive.public_inbox.paths import Target, message_id_spellings, read_path


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("", Target("inboxes")),
        ("edge", Target("inbox_slash", "edge", "edge")),
        ("a%40b", Target("inbox_slash", "a@b", "a%40b")),
        ("edge/", Target("topics", "edge")),
        ("edge/new.atom", Target("new_atom", "edge")),
        ("edge/m%2Fx@y", Target("message_slash", "edge", "m%2Fx@y")),
        ("edge/m@y/", Target("message", "edge", "m@y", "")),
        ("all/m@y/raw", Target("message", "all", "m@y", "raw")),
        ("edge/m@y/t.mbox.gz", Target("message", "edge", "m@y", "t.mbox.gz")),
        ("edge/m@y/T/", Target("message", "edge", "m@y", "T/")),
        ("edge/m@y/t", Target("form_slash", "edge", "m@y", "t")),
        ("edge/m@y/raw/", Target("unknown", "edge", "m@y")),
        ("r/m@y", Target("redirect", message_id="m@y")),
        ("r/", Target("unknown")),
    ],
)
def test_read_path(path, target):
    assert read_path(path) == target


def test_message_id_spellings_take_b4s_quote_plus():
    assert message_id_spellings("a%2Bb%40c") == ["a+b@c"]
    assert message_id_spellings("a+b%40c") == ["a+b@c", "a b@c"]
    assert message_id_spellings("%3Cm%2Fx@y%3E") == ["m/x@y"]
