"""The read-only NNTP server (RFC 3977, with RFC 2980's XOVER and XHDR): every public list is a
newsgroup named like lore's, its mail numbered in arrival order (migration 0028). The pure parts
(wildmats, ranges, the wire's lines, articles, overview fields, group names) beside the session
that answers commands (session.py) and the listener that `sathub serve --nntp-port` starts
(listening.py); the SQL is store/newsgroups.py. docs/archive-nntp.md says what a client sees."""
