"""Senders of From headers, pipermail's included (sathub.archive.mail.senders)."""

import pytest

from sathub.archive.mail.senders import PLACEHOLDER_ADDRESS, sender


@pytest.mark.parametrize("header, address, name", [
    ("esr at thyrsus.com (Eric S. Raymond)", "esr@thyrsus.com", "Eric S. Raymond"),
    ("esr at snark.thyrsus.com", "esr@snark.thyrsus.com", "esr@snark.thyrsus.com"),
    ("bbolli at ewanet.ch (Beat Bolli <bbolli@ewanet.ch>)", "bbolli@ewanet.ch", "Beat Bolli <bbolli@ewanet.ch>"),
    ("vondruch at redhat.com (=?ISO-8859-2?Q?V=EDt_Ondruch?=)", "vondruch@redhat.com", "Vít Ondruch"),
    ("wk0 at o2.pl (=?UTF-8?Q? Wojciech=20Kazubski ?=)", "wk0@o2.pl", "Wojciech Kazubski"),
    ('"Some One" <zzz@cse.unl.edu>', "zzz@cse.unl.edu", "Some One"),
    ("Tomas =?utf-8?q?Toftg=C3=A5rd?= <tomas.toftgard@ERICSSON.COM>", "tomas.toftgard@ericsson.com",
     "Tomas Toftgård"),
    ("  <xxx@korea.com>", "xxx@korea.com", "xxx@korea.com"),
    ("SOME@ONE.NET", "some@one.net", "SOME@ONE.NET"),
    ("John Doe", PLACEHOLDER_ADDRESS, "John Doe"),
    ("", PLACEHOLDER_ADDRESS, PLACEHOLDER_ADDRESS),
    (None, PLACEHOLDER_ADDRESS, PLACEHOLDER_ADDRESS),
])
def test_sender_forms(header, address, name):
    assert sender(header) == (address, name)
