"""Absolute links of the archive, built under the prefix the request used: the read API's, and the
pages' (the web prefix beside it), which Mailman's `Archived-At` headers, the feeds and the
pipermail redirects point to.

Every API link carries the request's `?format=` value when it had one (HyperKitty copies it);
attachment downloads never do. Paths end in `/`, so clients can take ids from path segments."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlencode

# The three prefixes real deployments use; a client may mix them, so links follow the request's.
API_PREFIXES = ("/archive/api/", "/archives/api/", "/hyperkitty/api/")
# Beside each, the web prefix of the pages and of Mailman's links (`/archive/`).
WEB_PREFIXES = tuple(prefix.removesuffix("api/") for prefix in API_PREFIXES)

# Characters Django's iri_to_uri leaves alone in a path, minus the ones that end a path.
_PATH_SAFE = "/@:;=+$,!*'()~&"


def quote_path(text: str) -> str:
    return quote(text, safe=_PATH_SAFE)


class ListLinks:
    """The links of one list's resources, as prefixes: an answer builds hundreds of them."""

    __slots__ = ("email", "emails", "end", "list", "thread", "threads")

    def __init__(self, api: str, address: str, suffix: str) -> None:
        base = f"{api}list/{quote_path(address)}/"
        self.list = base + suffix
        self.threads = f"{base}threads/{suffix}"
        self.emails = f"{base}emails/{suffix}"
        self.email = base + "email/"  # + hash + end
        self.thread = base + "thread/"  # + thread id + end, or + thread id + "/emails" + end
        self.end = "/" + suffix


class Links:
    """Link builder for one request: `site` is the public base URL, `prefix` one of API_PREFIXES."""

    def __init__(self, site: str, prefix: str, format_value: str | None) -> None:
        self.api = site + prefix
        # The web UI paths (attachment downloads) sit beside `api/`: /archives/api/ -> /archives/.
        self.web = site + prefix[: -len("api/")]
        self.suffix = f"?format={quote(format_value, safe='')}" if format_value else ""
        self._lists: dict[str, ListLinks] = {}
        self._senders: dict[str, str] = {}

    def of_list(self, address: str) -> ListLinks:
        links = self._lists.get(address)
        if links is None:
            links = self._lists[address] = ListLinks(self.api, address, self.suffix)
        return links

    def index(self) -> str:
        return f"{self.api}{self.suffix}"

    def lists(self) -> str:
        return f"{self.api}lists/{self.suffix}"

    def tags(self) -> str:
        return f"{self.api}tags/{self.suffix}"

    def thread(self, address: str, thread_id: str) -> str:
        list_links = self.of_list(address)
        return f"{list_links.thread}{thread_id}{list_links.end}"

    def thread_emails(self, address: str, thread_id: str) -> str:
        list_links = self.of_list(address)
        return f"{list_links.thread}{thread_id}/emails{list_links.end}"

    def email(self, address: str, message_id_hash: str) -> str:
        list_links = self.of_list(address)
        return f"{list_links.email}{message_id_hash}{list_links.end}"

    def sender_emails(self, sender_key: str) -> str:
        link = self._senders.get(sender_key)
        if link is None:
            link = self._senders[sender_key] = f"{self.api}sender/{quote_path(sender_key)}/emails/{self.suffix}"
        return link

    def download(self, address: str, message_id_hash: str, counter: int, name: str) -> str:
        return f"{self.web}list/{quote_path(address)}/message/{message_id_hash}/attachment/{counter}/{quote_path(name)}"

    def without_format(self, link: str) -> str:
        """`link` stripped of the format suffix: the base of a pagination link."""
        return link[: len(link) - len(self.suffix)] if self.suffix else link


def with_query(base: str, params: list[tuple[str, str]]) -> str:
    """`base` with a query rebuilt as Django REST framework does: parameters sorted by name."""
    return f"{base}?{urlencode(sorted(params, key=lambda item: item[0]))}" if params else base


# -- the pages -------------------------------------------------------------------------------------


def list_page_url(web: str, address: str) -> str:
    """`web`: the site URL with the web prefix (`https://host/archive/`)."""
    return f"{web}list/{quote_path(address)}/"


def message_page_url(web: str, address: str, message_id_hash: str) -> str:
    return f"{web}list/{quote_path(address)}/message/{message_id_hash}/"


def thread_page_url(web: str, address: str, thread_id: str) -> str:
    return f"{web}list/{quote_path(address)}/thread/{thread_id}/"


@dataclass
class PageLinks:
    web: str  # site URL + web prefix
    api: Links

    def index(self) -> str:
        return self.web

    def list(self, address: str) -> str:
        return list_page_url(self.web, address)

    def thread(self, address: str, thread_id: str) -> str:
        return thread_page_url(self.web, address, thread_id)

    def message(self, address: str, message_id_hash: str) -> str:
        return message_page_url(self.web, address, message_id_hash)

    def month(self, address: str, year: int, month: int) -> str:
        return f"{self.list(address)}{year:04d}/{month:02d}/"

    def latest(self, address: str) -> str:
        return f"{self.list(address)}latest"

    def raw(self, address: str, message_id_hash: str) -> str:
        """The message's source as received (docs/archive-export.md, "Raw sources")."""
        return f"{self.message(address, message_id_hash)}raw"

    def export_thread(self, address: str, thread_id: str) -> str:
        """The thread as an mbox.gz, at HyperKitty's export path with its `thread` parameter."""
        return f"{self.list(address)}export/{thread_id}.mbox.gz?thread={thread_id}"

    def rss(self, address: str) -> str:
        return f"{self.list(address)}feed/"

    def atom_list(self, address: str) -> str:
        return f"{self.list(address)}feed/atom/"

    def atom_thread(self, address: str, thread_id: str) -> str:
        return f"{self.thread(address, thread_id)}feed/atom/"

    def atom_sender(self, mailman_id: str) -> str:
        return f"{self.web}sender/{mailman_id}/feed/atom/"
