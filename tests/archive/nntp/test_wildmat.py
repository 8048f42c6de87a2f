"""RFC 3977's wildmats (archive/nntp/wildmat.py): the last pattern a name matches decides."""

import pytest

from sathub.archive.nntp.wildmat import BadWildmat, matches


@pytest.mark.parametrize(
    "wildmat, name, expected",
    [
        ("*", "org.python.python-dev", True),
        ("org.python.*", "org.python.python-dev", True),
        ("org.python.*", "org.pythonx.dev", False),
        ("org.?ython.dev", "org.python.dev", True),
        ("org.?ython.dev", "org.ython.dev", False),
        # a list of patterns, one negated: the last one a name matches decides
        ("a*,!*b,*c*", "aaa", True),
        ("a*,!*b,*c*", "abb", False),
        ("a*,!*b,*c*", "abcb", True),
        ("a*,!*b,*c*", "ccb", True),
        ("a*,!*b,*c*", "xxx", False),
        ("!*", "anything", False),
        ("org.python.+dev", "org.python.+dev", True),  # no regular expression leaks through
        ("org.python.+dev", "org.python.ddev", False),
    ],
)
def test_the_last_pattern_matched_decides(wildmat, name, expected):
    assert matches(wildmat, name) is expected


@pytest.mark.parametrize("wildmat", ["", "a,,b", "!", "a,!"])
def test_an_empty_pattern_is_no_wildmat(wildmat):
    with pytest.raises(BadWildmat):
        matches(wildmat, "a")
