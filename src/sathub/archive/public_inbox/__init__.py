"""public-inbox's HTTP forms over the archive (docs/public-inbox.md): each public list an inbox
under /pi/, its messages by Message-ID, their sources as public-inbox's mboxrd, threads by
public-inbox's rule, Atom feeds, and the redirects b4 and commit trailers rely on."""
