"""Inbox names: the local part when unique among public lists, else the address; renames win."""

from __future__ import annotations

import pytest

from sathub.archive.public_inbox.names import inbox_names
from sathub.config import SettingError, Settings, parse_inbox_renames


def test_unique_local_parts_name_their_inbox():
    names = inbox_names(["dev@a.org", "dev@b.org", "users@a.org", "all@a.org"], {})
    assert names == {
        "dev@a.org": "dev@a.org",
        "dev@b.org": "dev@b.org",
        "users": "users@a.org",
        "all@a.org": "all@a.org",
    }


def test_a_rename_wins_and_is_nobody_elses_default():
    names = inbox_names(["dev@a.org", "users@a.org"], {"dev@a.org": "users"})
    assert names == {"users": "dev@a.org", "users@a.org": "users@a.org"}


def test_the_setting_is_checked_at_start_up():
    assert parse_inbox_renames(" dev@a.org = kernel , x@y.org=x ") == {"dev@a.org": "kernel", "x@y.org": "x"}
    for wrong in ("dev@a.org", "dev=kernel", "dev@a.org=all", "dev@a.org=a/b", "a@x=n,b@x=n"):
        with pytest.raises(SettingError):
            Settings.from_env({"SATHUB_PUBLIC_INBOX_NAMES": wrong})
