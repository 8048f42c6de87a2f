"""A list's settings as Mailman core has them, read from its REST API with mailmanclient, as
HyperKitty reads them: display name, description, subject prefix, archive policy, creation date.

Used when the archiver endpoint first sees a list and by `sathub archive lists sync`. Without
SATHUB_MAILMAN_REST_URL nothing is asked, and lists keep sathub's defaults (public)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from urllib.error import HTTPError

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.store import lists as list_store
from sathub.archive.tables import NEVER, PRIVATE, PUBLIC
from sathub.config import Settings

POLICIES = (PUBLIC, PRIVATE, NEVER)
TIMEOUT = 10  # seconds per REST call: a hung Mailman must not hold a worker thread for ever


class MailmanUnavailable(Exception):
    """Mailman's REST API did not answer, or answered something else than a list's settings."""


@dataclass(frozen=True)
class ListSettings:
    display_name: str
    description: str | None
    subject_prefix: str
    archive_policy: str  # one of POLICIES
    created_at: datetime | None  # naive UTC, whole seconds

    def columns(self) -> dict:
        """The values of store.lists.SETTING_COLUMNS (created_at only when Mailman gave one)."""
        values = asdict(self)
        if values["created_at"] is None:
            del values["created_at"]
        return values


def configured(settings: Settings) -> bool:
    return bool(settings.mailman_rest_url)


def fetch(settings: Settings, address: str) -> ListSettings | None:
    """The settings Mailman has for the list `address`; None when Mailman has no such list.
    Raises MailmanUnavailable when it cannot be asked."""
    from mailmanclient import Client, MailmanConnectionError  # imported when first needed: ~40 ms

    client = Client(
        f"{settings.mailman_rest_url.rstrip('/')}/3.1",
        settings.mailman_rest_user or None,
        settings.mailman_rest_password or None,
        request_hooks=[_with_timeout],
    )
    try:
        config = client.get_list(address.lower()).settings
        values = {name: config[name] for name in ("display_name", "description", "subject_prefix", "archive_policy")}
        created = config.get("created_at")
    except HTTPError as error:
        if error.code == 404:
            return None
        raise MailmanUnavailable(f"Mailman's REST API answered {error.code} for {address}") from error
    except (MailmanConnectionError, OSError, KeyError, ValueError) as error:
        raise MailmanUnavailable(
            f"Mailman's REST API at {settings.mailman_rest_url} cannot be read: {error}"
        ) from error
    return from_config(values, created)


def from_config(values: dict, created: str | None) -> ListSettings:
    """ListSettings from the values of Mailman's `lists/<address>/config` resource."""
    policy = values.get("archive_policy")
    return ListSettings(
        display_name=values.get("display_name") or "",
        description=values.get("description") or None,
        subject_prefix=values.get("subject_prefix") or "",
        # An unknown policy is taken for the strictest that still archives: nothing leaks.
        archive_policy=policy if policy in POLICIES else PRIVATE,
        created_at=_utc(created),
    )


def _utc(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.replace(microsecond=0)


def _with_timeout(params: dict) -> dict:
    return {**params, "timeout": TIMEOUT}


@dataclass
class SyncResult:
    """What `sathub archive lists sync` did, list by list."""

    lines: list[str]
    unknown: int = 0  # lists Mailman does not have

    def describe(self) -> str:
        return "\n".join(self.lines) if self.lines else "No lists to synchronise."


def sync_lists(engine, settings: Settings, addresses: list[str] | None = None) -> SyncResult:
    """Take display name, description, subject prefix, archive policy and creation date from
    Mailman for `addresses` (created when Mailman has them), or for every list sathub has.
    Raises MailmanUnavailable when Mailman cannot be asked."""
    with db.connect(engine) as conn:
        names = [a.strip().lower() for a in addresses] if addresses else list_store.list_names(conn)
    result = SyncResult([])
    for name in names:
        fetched = fetch(settings, name)
        with db.connect(engine, write=True) as conn:
            known = list_store.find_list(conn, name)
            if fetched is None:
                result.unknown += 1
                result.lines.append(f"{name}: not in Mailman, left as it is")
                continue
            values = fetched.columns()
            if known is None:
                list_store.create_list(conn, name, {"created_at": utc_now(), **values})
                result.lines.append(f"{name}: created ({fetched.archive_policy})")
                continue
            changed = {key: value for key, value in values.items() if getattr(known, key) != value}
            list_store.update_list(conn, known.id, changed)
        shown = ", ".join(
            f"{key} {getattr(known, key)!r} -> {value!r}" for key, value in changed.items() if key != "created_at"
        )
        result.lines.append(f"{name}: {shown or 'unchanged'}")
    return result
