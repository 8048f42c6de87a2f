"""Absolute links of the archive API, built under the prefix the request used.

Every API link carries the request's `?format=` value when it had one (HyperKitty copies it);
attachment downloads never do. Paths end in `/`, so clients can take ids from path segments."""

from __future__ import annotations

from urllib.parse import quote, urlencode

# The three prefixes real deployments use; a client may mix them, so links follow the request's.
API_PREFIXES = ("/archive/api/", "/archives/api/", "/hyperkitty/api/")

# Characters Django's iri_to_uri leaves alone in a path, minus the ones that end a path.
_PATH_SAFE = "/@:;=+$,!*'()~&"


def quote_path(text: str) -> str:
    return quote(text, safe=_PATH_SAFE)


class Links:
    """Link builder for one request: `site` is the public base URL, `prefix` one of API_PREFIXES."""

    def __init__(self, site: str, prefix: str, format_value: str | None) -> None:
        self.api = site + prefix
        # The web UI paths (attachment downloads) sit beside `api/`: /archives/api/ -> /archives/.
        self.web = site + prefix[: -len("api/")]
        self.suffix = f"?format={quote(format_value, safe='')}" if format_value else ""
        self._lists: dict[str, str] = {}

    def _list_path(self, address: str) -> str:
        # Many links of one answer share a list; quote each address once.
        path = self._lists.get(address)
        if path is None:
            path = self._lists[address] = f"{self.api}list/{quote_path(address)}/"
        return path

    def index(self) -> str:
        return f"{self.api}{self.suffix}"

    def lists(self) -> str:
        return f"{self.api}lists/{self.suffix}"

    def tags(self) -> str:
        return f"{self.api}tags/{self.suffix}"

    def mailing_list(self, address: str) -> str:
        return f"{self._list_path(address)}{self.suffix}"

    def threads(self, address: str) -> str:
        return f"{self._list_path(address)}threads/{self.suffix}"

    def list_emails(self, address: str) -> str:
        return f"{self._list_path(address)}emails/{self.suffix}"

    def thread(self, address: str, thread_id: str) -> str:
        return f"{self._list_path(address)}thread/{thread_id}/{self.suffix}"

    def thread_emails(self, address: str, thread_id: str) -> str:
        return f"{self._list_path(address)}thread/{thread_id}/emails/{self.suffix}"

    def email(self, address: str, message_id_hash: str) -> str:
        return f"{self._list_path(address)}email/{message_id_hash}/{self.suffix}"

    def sender_emails(self, sender_key: str) -> str:
        return f"{self.api}sender/{quote_path(sender_key)}/emails/{self.suffix}"

    def download(self, address: str, message_id_hash: str, counter: int, name: str) -> str:
        return (f"{self.web}list/{quote_path(address)}/message/{message_id_hash}"
                f"/attachment/{counter}/{quote_path(name)}")

    def without_format(self, link: str) -> str:
        """`link` stripped of the format suffix: the base of a pagination link."""
        return link[: len(link) - len(self.suffix)] if self.suffix else link


def with_query(base: str, params: list[tuple[str, str]]) -> str:
    """`base` with a query rebuilt as Django REST framework does: parameters sorted by name."""
    return f"{base}?{urlencode(sorted(params, key=lambda item: item[0]))}" if params else base
