"""How much of a MIME tree is parsed (sathub.archive.mail.parts_limit): at most max_parts parts,
nested at most 32 levels deep; a message cut short says so in its defects. No database."""

from __future__ import annotations

import time
from email.message import Message
from email.policy import compat32

from sathub.archive.mail.parts_limit import PartsLeftOut, parse_within_limits
from tests.archive.mail.test_message import nested_message
from tests.archive.messages import many_parts_message, raw_message


def names(message: Message) -> list[str | None]:
    return [part.get_filename() for part in message.walk()]


def cut_short(message: Message) -> bool:
    return any(isinstance(defect, PartsLeftOut) for defect in message.defects)


def test_the_message_and_its_first_parts_in_walk_order():
    message = parse_within_limits(many_parts_message("m@x", 10), compat32, 5)
    # The message is part 0, its text part 1, attachment n part n + 1.
    assert names(message) == [None, None, "f1.txt", "f2.txt", "f3.txt"]
    assert cut_short(message)
    assert message.get_payload()[-1].get_payload() == "part 3"  # the last part kept is whole


def test_a_message_within_the_limits_is_whole():
    data = many_parts_message("m@x", 10)
    message = parse_within_limits(data, compat32, 12)
    assert names(message) == [None, None] + [f"f{n}.txt" for n in range(1, 11)]
    assert not cut_short(message)
    assert message.as_bytes() == data


def test_the_parts_of_an_attached_message_count():
    inner = raw_message("inner@x", content_type='multipart/mixed; boundary="I"', body="--I\n\none\n--I\n\ntwo\n--I--\n")
    body = b"--O\nContent-Type: message/rfc822\n\n" + inner + b"\n--O\nContent-Type: text/plain\n\nafter\n--O--\n"
    data = raw_message("outer@x", content_type='multipart/mixed; boundary="O"', body=body)
    # outer, the message/rfc822 part, the attached message, its two parts: 5; the text after is the 6th.
    assert not cut_short(parse_within_limits(data, compat32, 6))
    assert cut_short(parse_within_limits(data, compat32, 5))


def test_nesting_stops_below_32_levels():
    message = parse_within_limits(nested_message(40), compat32, 1000)
    depth, part = 0, message
    while part.is_multipart() and len(part.get_payload()) == 2:
        part, depth = part.get_payload()[1], depth + 1
    assert depth == 32 and cut_short(message)
    assert not cut_short(parse_within_limits(nested_message(32), compat32, 1000))


def test_parsing_stops_at_the_limit():
    # The parser's time grows with the parts it builds, not with those it is spared: 40,000 parts cut
    # at 1,000 cost a fraction of the whole (40 times less, linearly; a bound of 8 for a busy machine).
    data = many_parts_message("m@x", 40_000)

    def seconds(max_parts: int) -> float:
        started = time.perf_counter()
        parse_within_limits(data, compat32, max_parts)
        return time.perf_counter() - started

    assert min(seconds(50_000) for _ in range(2)) / min(seconds(1_000) for _ in range(2)) > 8
