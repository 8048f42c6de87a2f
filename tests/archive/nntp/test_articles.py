"""Articles on the wire (archive/nntp/articles.py): CRLF, dots doubled, public-inbox's headers."""

from sathub.archive.nntp.articles import article_lines, block, split_message, with_news_headers

SOURCE = b"From: a@example.org\nSubject: s\nMessage-ID: <m@x>\n\n.hidden dot\nline\n.\n"


def test_a_block_ends_lines_with_crlf_doubles_leading_dots_and_ends_with_a_lone_dot():
    # RFC 3977 3.1.1
    assert block([b".a", b"b", b".", b""]) == b"..a\r\nb\r\n..\r\n\r\n.\r\n"
    assert block([]) == b".\r\n"


def test_split_message_reads_lf_and_crlf_alike():
    assert split_message(b"A: 1\r\nB: 2\r\n\r\nbody\r\n") == ([b"A: 1", b"B: 2"], [b"body"])
    assert split_message(b"A: 1\n\nbody\n\nmore") == ([b"A: 1"], [b"body", b"", b"more"])
    assert split_message(b"A: 1\n") == ([b"A: 1"], [])


def test_news_headers_are_added_after_the_others_as_public_inbox_does():
    header, _ = split_message(SOURCE)
    assert with_news_headers(header, "news.example", "org.example.dev", 7) == [
        b"From: a@example.org",
        b"Subject: s",
        b"Message-ID: <m@x>",
        b"Xref: news.example org.example.dev:7",
        b"Newsgroups: org.example.dev",
        b"Path: news.example!not-for-mail",
    ]


def test_news_headers_the_message_had_are_replaced_where_they_stood():
    header = [b"Path: somewhere!else", b"\tfolded", b"From: a@b", b"Newsgroups: comp.x", b"NEWSGROUPS: again"]
    assert with_news_headers(header, "n", "g", 1) == [
        b"Path: n!not-for-mail",
        b"From: a@b",
        b"Newsgroups: g",
        b"Xref: n g:1",
    ]


def test_article_head_and_body():
    assert article_lines(SOURCE, "BODY", "n", "g", 1) == [b".hidden dot", b"line", b"."]
    head = article_lines(SOURCE, "HEAD", "n", "g", 1)
    assert head[-1] == b"Path: n!not-for-mail" and b"" not in head
    assert article_lines(SOURCE, "ARTICLE", "n", "g", 1) == [*head, b"", b".hidden dot", b"line", b"."]
    assert block(article_lines(SOURCE, "BODY", "n", "g", 1)) == b"..hidden dot\r\nline\r\n..\r\n.\r\n"
