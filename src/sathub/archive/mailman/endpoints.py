"""Mailman's archiver door: the two calls the `mailman-hyperkitty` plugin makes (archive-more.md,
"The archiver protocol"), under each of the three prefixes.

    POST <prefix>api/mailman/archive   multipart `mlist` + file `message` -> {"url": message page}
    GET  <prefix>api/mailman/urls?mlist=…[&msgid=…] -> {"url": list or message page}

Both want the shared key (`Authorization: Token <SATHUB_ARCHIVER_KEY>`, compared in constant
time) from an allowed source address (SATHUB_ARCHIVER_FROM: addresses and CIDR ranges). A refusal
is a 403 JSON body naming the check that failed (`check`), so an operator behind a proxy or in a
container sees at once which one it is. With no key configured every call is refused that way.

The archive call stores through the importer's own rules (mailman/live_ingest.py): a message already
archived is answered with its existing URL; one hidden or deleted from the list (archive/removal/)
is not archived again, answered 200 (Mailman stops retrying) `{"url": "", "archived": false, …}`.
A list seen for the first time takes its settings from Mailman's REST API when
SATHUB_MAILMAN_REST_URL is set (mailman/list_settings.py).

`mlist` must be an address Mailman could give a list (mail/list_address.py: its list-name characters,
a domain of letters, digits and hyphens, at most the 254 characters mailing_lists.name holds), and no
field or parameter may come twice: otherwise a 400 naming the fault, and no list is created. Every
answer but the bodiless 405 is JSON with `X-Content-Type-Options: nosniff`."""

from __future__ import annotations

import hmac
import logging

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.edge import NOSNIFF, ArchiveEndpoint, ArchiveError
from sathub.archive.links import list_page_url, message_page_url
from sathub.archive.mail.dates import utc_now
from sathub.archive.mail.ids import clean_message_id, message_id_hash
from sathub.archive.mail.list_address import list_address_fault
from sathub.archive.mailman import list_settings, live_ingest, parser_process
from sathub.archive.store import lists as list_store
from sathub.archive.tables import NEVER, PUBLIC
from sathub.config import Settings, address_in, parse_networks
from sathub.web import BodyTooLarge, client_address, engine_of, in_thread, read_body, settings_of, site_url

log = logging.getLogger("sathub.archive.mailman")


def json_answer(payload: dict, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        orjson.dumps(payload),
        status_code=status,
        headers={"Content-Type": "application/json", **NOSNIFF, **(headers or {})},
    )


# -- who may call ------------------------------------------------------------------------------


def check_caller(request: Request, settings: Settings) -> None:
    """Raise ArchiveError(403) unless the request may use the archiver endpoints. The order: the
    endpoints are on, the source address is allowed, a key is sent, it is the right key."""
    if not settings.archiver_key:
        raise ArchiveError(
            403,
            "The archiver endpoints are off: set SATHUB_ARCHIVER_KEY on this server "
            "(and the same value as api_key in mailman-hyperkitty.cfg).",
            check="archiver_key_unset",
        )
    address = client_address(request)
    try:
        networks = parse_networks(settings.archiver_from)
    except ValueError as error:
        raise ArchiveError(403, f"SATHUB_ARCHIVER_FROM cannot be read: {error}", check="source_address") from None
    if not address_in(address, networks):
        raise ArchiveError(
            403,
            f"Calls from {address} are not allowed: add it (or its network, e.g. "
            f"{address}/32) to SATHUB_ARCHIVER_FROM.",
            check="source_address",
        )
    header = request.headers.get("authorization")
    if header is None:
        raise ArchiveError(
            403,
            "No Authorization header: send 'Authorization: Token <key>' (api_key in mailman-hyperkitty.cfg).",
            check="key_missing",
        )
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "token" or not token.strip():
        raise ArchiveError(403, "The Authorization header is not 'Token <key>'.", check="key_missing")
    if not hmac.compare_digest(token.strip().encode(), settings.archiver_key.encode()):
        raise ArchiveError(
            403, "Wrong key: api_key in mailman-hyperkitty.cfg differs from SATHUB_ARCHIVER_KEY.", check="key_wrong"
        )


def list_address(value: str | None, what: str) -> str:
    """The list `value` names, lowercased; ArchiveError 400 unless Mailman could have such a list
    (mail/list_address.py), so that no list is ever created under another name."""
    address = (value or "").strip()
    fault = list_address_fault(address) if address else "it is empty"
    if fault:
        raise ArchiveError(
            400,
            f"{what} must be the posting address of a list Mailman can create (name@domain), got {value!r}: {fault}.",
        )
    return address.lower()


def only_one(values: list, what: str):
    """The one value of a field or parameter; ArchiveError 400 when it is given more than once
    (which of them was meant cannot be known), None when it is absent."""
    if len(values) > 1:
        raise ArchiveError(400, f"{what} is given {len(values)} times; send it once.")
    return values[0] if values else None


# -- the two endpoints ---------------------------------------------------------------------------


class MailmanEndpoint(ArchiveEndpoint):
    """The door of one archiver endpoint under one prefix (`/archive/`, `/archives/`, `/hyperkitty/`)."""

    unavailable = "The database is unavailable; Mailman will retry."

    def __init__(self, web_prefix: str) -> None:
        self.web_prefix = web_prefix

    async def respond(self, request: Request) -> Response:
        check_caller(request, settings_of(request))
        return json_answer(await self.answer(request))

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        if error.status == 405:
            return Response(status_code=405, headers={"Allow": self.allow})
        if error.status == 403:
            log.warning("archiver call refused (%s) from %s: %s", error.check, client_address(request), error.detail)
        body = {"detail": error.detail} | ({"check": error.check} if error.check else {})
        return json_answer(body, error.status)

    def site(self, request: Request) -> str:
        return site_url(request) + self.web_prefix

    async def answer(self, request: Request) -> dict:
        raise NotImplementedError


class Urls(MailmanEndpoint):
    """The URL of a list's page, or of a message's page from its Message-ID (computed: the
    message need not be archived yet, Mailman asks before it posts)."""

    async def answer(self, request: Request) -> dict:
        query = request.query_params
        address = list_address(only_one(query.getlist("mlist"), "mlist"), "mlist")
        msgid = only_one(query.getlist("msgid"), "msgid")
        if msgid is None:
            return {"url": list_page_url(self.site(request), address)}
        message_id = clean_message_id(msgid)
        if not message_id:
            raise ArchiveError(400, "msgid is empty.")
        return {"url": message_page_url(self.site(request), address, message_id_hash(message_id))}


class Archive(MailmanEndpoint):
    """Store one message Mailman distributed, and answer its page's URL."""

    methods = ("POST",)

    async def answer(self, request: Request) -> dict:
        settings = settings_of(request)
        address, data = await read_message(request, settings.archiver_max_bytes)
        try:
            email = await parsed(data, settings.max_message_parts)
        except ArchiveError as error:
            log.warning("message for %s refused: %s", address, error.detail)
            raise
        stored = await self.store(request, address, email)
        if stored.policy is None or (stored.policy == NEVER and list_settings.configured(settings)):
            # First seen, or about to refuse: take the settings Mailman has now, and store again.
            await self.settings_from_mailman(request, settings, address, stored.policy is not None)
            stored = await self.store(request, address, email)
        if stored.policy == NEVER:
            log.warning("not archived: %s's archive policy is 'never' (message %s)", address, email.message_id)
            return {
                "url": "",
                "archived": False,
                "detail": f"Not archived: the archive policy of {address} is 'never'.",
            }
        if stored.removed is not None:  # said once by live_ingest; no page to point to
            return {"url": "", "archived": False, "detail": f"Not archived: removed from the archive of {address}."}
        url = message_page_url(self.site(request), address, email.message_id_hash)
        if not stored.new:
            log.info("duplicate of archived message %s in %s", email.message_id, address)
        elif email.parts_left_out:
            log.warning(
                "message %s archived in %s without its parts beyond the first %d or nested too deep "
                "(SATHUB_MAX_MESSAGE_PARTS): they are kept in its source only",
                email.message_id,
                address,
                settings.max_message_parts,
            )
        return {"url": url} if stored.new else {"url": url, "duplicate": True}

    @staticmethod
    async def store(request: Request, address: str, email) -> live_ingest.Stored:
        return await run_in_threadpool(live_ingest.store_alone, engine_of(request), address, email)

    async def settings_from_mailman(self, request: Request, settings: Settings, address: str, known: bool) -> None:
        """Create the list, or update a known one, with the settings Mailman has for it (public
        when Mailman is not configured or does not know the list)."""
        values = {"archive_policy": PUBLIC, "created_at": utc_now()}
        if list_settings.configured(settings):
            try:
                fetched = await run_in_threadpool(list_settings.fetch, settings, address)
            except list_settings.MailmanUnavailable as error:
                # Not knowing whether the list is private, archive nothing yet: Mailman retries.
                # (The 503 is logged with its detail by server/request_log.py.)
                raise ArchiveError(
                    503,
                    f"{error}; the message is not archived until the list's settings can be read (Mailman will retry).",
                ) from None
            if fetched is not None:
                values |= fetched.columns()
            else:
                log.warning("Mailman's REST API does not know %s: archived as a public list", address)
        if known:
            await in_thread(request, update_list_settings, address, values, write=True)
        else:
            log.info("new list %s (archive policy %s)", address, values["archive_policy"])
            await in_thread(request, list_store.create_list, address, values, write=True)


def update_list_settings(conn, address: str, values: dict) -> None:
    known = list_store.find_list(conn, address)
    if known is None:  # gone meanwhile: nothing to update
        return
    list_store.update_list(conn, known.id, {k: v for k, v in values.items() if k != "created_at"})


async def parsed(data: bytes, max_parts: int):
    try:
        return await parser_process.parsed(data, max_parts)
    except live_ingest.UnreadableMessage as error:
        raise ArchiveError(400, f"Not archived: {error}.") from None


async def read_message(request: Request, limit: int) -> tuple[str, bytes]:
    """(list address, raw message) of the multipart body; ArchiveError 413 / 400 otherwise."""
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise ArchiveError(400, "The body must be multipart/form-data with the fields mlist and message.")
    try:
        await read_body(request, limit)
    except BodyTooLarge:
        raise ArchiveError(413, f"The body is larger than SATHUB_ARCHIVER_MAX_BYTES ({limit} bytes).") from None
    try:
        form = await request.form(max_files=4, max_fields=16, max_part_size=64 * 1024)
    except Exception as error:
        raise ArchiveError(400, f"The multipart body cannot be read: {error}.") from None
    try:
        address = only_one(form.getlist("mlist"), "The field mlist")
        message = only_one(form.getlist("message"), "The file field message")
        if not isinstance(address, str):
            raise ArchiveError(400, "The field mlist (the list's posting address) is missing.")
        if message is None:
            raise ArchiveError(400, "The file field message (the raw message) is missing.")
        data = await message.read() if isinstance(message, UploadFile) else message.encode("utf-8", "surrogateescape")
        return list_address(address, "mlist"), data
    finally:
        await form.close()


ARCHIVER_PATHS = {"mailman/archive": Archive, "mailman/urls": Urls}
