"""The parser shortcut of mail/headers.modern_text, checked on real headers: for Subject,
In-Reply-To and References values without an encoded word, the modern parser gives the text back
unchanged, so skipping it changes no answer."""

import gzip
from email.parser import BytesHeaderParser

import pytest

from sathub.archive.mail import headers
from tests.conftest import SHARED_DATA

ARCHIVES = ["python-committers@python.org.mbox.gz", "gpsd-dev@lists.berlios.de.mbox.gz"]


def values_without_encoded_words(archive: str):
    with gzip.open(SHARED_DATA / "mail" / archive, "rb") as compressed:
        data = compressed.read()
    for raw in data.split(b"\nFrom "):
        message = BytesHeaderParser().parsebytes(raw.partition(b"\n")[2])  # after the From_ line
        for name in ("subject", "in-reply-to", "references"):
            for value in message.get_all(name) or ():
                text = headers.raw_text(value)
                if text and "=?" not in text:
                    yield name, value, text


@pytest.mark.parametrize("archive", ARCHIVES)
def test_the_shortcut_gives_what_the_parser_gives(archive):
    checked = 0
    for name, value, text in values_without_encoded_words(archive):
        parsed = headers.raw_header_text(str(headers._MODERN.header_factory(name, text))).replace("\x00", "")
        assert headers.modern_text(name, value) == parsed, (name, value)
        checked += 1
    assert checked > 1000
