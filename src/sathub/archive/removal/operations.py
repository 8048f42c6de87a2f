"""Hide, unhide and delete: one scope, one write transaction, every door at once, one audit row
(docs/archive-removal.md). The command line and the web pages both come here.

What a removal chooses: hide takes shown messages; unhide brings back hidden ones (for a list
hidden whole, only what that hide took: mail hidden on its own before stays hidden); delete
erases both, and a whole list's row with them."""

from __future__ import annotations

from dataclasses import dataclass, field

from sathub.archive.access import HASH
from sathub.archive.mail.dates import utc_now
from sathub.archive.mail.ids import clean_message_id
from sathub.archive.store import removal_scopes, removals
from sathub.archive.store.removal_scopes import Scope
from sathub.db.engines import Connection, Engine, Row, connect

HIDE, UNHIDE, DELETE = "hide", "unhide", "delete"
ACTIONS = (HIDE, UNHIDE, DELETE)
# Past this many messages a removal wants to be confirmed (`--yes`): a slip of a scope is costly.
CONFIRM_OVER = 100
_DONE = {HIDE: "hidden", UNHIDE: "unhidden", DELETE: "deleted"}


class RemovalRefused(ValueError):
    """The removal cannot run as asked (an unknown list, message, thread or sender; no reason; too
    many messages unconfirmed): nothing was changed. The text says why, in one line."""


@dataclass
class Outcome:
    action: str
    scope: Scope
    messages: int = 0  # what was (or, dry, would be) hidden, unhidden or deleted
    already: int = 0  # what the scope names that is already in that state
    lists: list[str] = field(default_factory=list)  # the lists touched
    whole_list: bool = False
    dry_run: bool = False
    removal_id: int | None = None
    # The rows chosen (removal_scopes'), and the touched lists' names by id: what _apply changes.
    shown: list[Row] = field(default_factory=list, repr=False)
    hidden: list[Row] = field(default_factory=list, repr=False)
    list_names: dict[int, str] = field(default_factory=dict, repr=False)

    def describe(self) -> str:
        """One line: what was done (or would be), to which scope."""
        verb = f"would be {_DONE[self.action]}" if self.dry_run else _DONE[self.action]
        line = f"{describe_scope(self.scope)}: {self.messages} message(s) {verb}"
        if self.already:
            line += f", {self.already} already {'shown' if self.action == UNHIDE else _DONE[self.action]}"
        if self.whole_list and self.scope.list_name:
            line += f"; the list {'would be ' if self.dry_run else ''}{_LIST_DONE[self.action]}"
        return line + "."


_LIST_DONE = {HIDE: "hidden whole (404 everywhere)", UNHIDE: "shown again", DELETE: "deleted"}


def describe_scope(scope: Scope, *, erased: bool = False) -> str:
    """The scope in the audit log's words; a sender by a hash of the address when `erased`."""
    parts = []
    if scope.message_id is not None:
        parts.append(f"message <{scope.message_id}>")
    if scope.message_id_hash is not None:
        parts.append(f"message {scope.message_id_hash}")
    if scope.thread is not None:
        parts.append(f"thread {scope.thread}")
    if scope.sender is not None:
        parts.append(f"sender {removals.hashed_address(scope.sender) if erased else scope.sender.lower()}")
    parts.append(f"list {scope.list_name.lower()}" if scope.list_name else "every list")
    return " ".join(parts)


def scope_of(
    message_id: str | None = None,
    message_id_hash_: str | None = None,
    thread: str | None = None,
    sender: str | None = None,
    list_name: str | None = None,
) -> Scope:
    """A Scope from what an operator typed; RemovalRefused when it names nothing or cannot be."""
    if message_id is not None:
        message_id = clean_message_id(message_id)
        if not message_id:
            raise RemovalRefused("--message-id is empty")
    for name, value in (("--hash", message_id_hash_), ("--thread", thread)):
        if value is not None and not HASH.fullmatch(value.upper()):
            raise RemovalRefused(f"{name} {value!r} is not a Message-ID hash (32 letters A-Z and digits 2-7)")
    if thread is not None and list_name is None:
        raise RemovalRefused("--thread needs --list: a thread's id names it on one list")
    if sender is not None and "@" not in sender:
        raise RemovalRefused(f"--sender {sender!r} is not an address")
    if not any((message_id, message_id_hash_, thread, sender, list_name)):
        raise RemovalRefused("name what to remove: --message-id, --hash, --thread, --sender or --list")
    return Scope(
        message_id,
        message_id_hash_.upper() if message_id_hash_ else None,
        thread.upper() if thread else None,
        sender.lower() if sender else None,
        list_name.lower() if list_name else None,
    )


def run(
    engine: Engine,
    action: str,
    scope: Scope,
    reason: str,
    actor: str,
    *,
    dry_run: bool = False,
    confirmed: bool = False,
) -> Outcome:
    """Do `action` to what `scope` names, in one write transaction; RemovalRefused (nothing
    changed) when the scope names nothing known, the reason is blank, or more than CONFIRM_OVER
    messages would go unconfirmed."""
    if action not in ACTIONS:
        raise RemovalRefused(f"unknown action {action!r}")
    if not reason.strip():
        raise RemovalRefused("a reason is required (--reason TEXT): it goes to the audit log")
    with connect(engine, write=True) as conn:
        lists = removal_scopes.lists_named(conn, scope.list_name)
        if not lists:
            missing = f"no list {scope.list_name}" if scope.list_name else f"{describe_scope(scope)}: no such message"
            raise RemovalRefused(f"{missing} in the archive")
        removal_scopes.lock_lists(conn, [row.id for row in lists])
        outcome = _chosen(conn, action, scope, lists)
        if dry_run:
            outcome.dry_run = True
            return outcome
        if outcome.messages > CONFIRM_OVER and not confirmed:
            raise RemovalRefused(
                f"{describe_scope(scope)}: {outcome.messages} messages would be {_DONE[action]}; "
                "confirm with --yes (see them first with --dry-run)"
            )
        if outcome.messages or outcome.whole_list:
            _apply(conn, outcome, lists, reason.strip(), actor)
        return outcome


def audit_log(engine: Engine, list_name: str | None = None, limit: int | None = None) -> list[Row]:
    """The audit log, newest first."""
    with connect(engine) as conn:
        return removals.audit_log(conn, list_name, limit)


def _chosen(conn: Connection, action: str, scope: Scope, lists: list[Row]) -> Outcome:
    """What the action would change, without changing it (kept on the outcome for _apply)."""
    list_ids = [row.id for row in lists]
    sender = None
    if scope.sender is not None:
        sender = removal_scopes.sender_id(conn, scope.sender)
        if sender is None:
            raise RemovalRefused(f"no mail from {scope.sender} in the archive")
    whole = scope.whole_list
    hidden_whole = whole and lists[0].hidden_by is not None
    shown = removal_scopes.shown(conn, scope, list_ids, sender)
    hidden = removal_scopes.hidden(
        conn, scope, list_ids, sender, lists[0].hidden_by if action == UNHIDE and hidden_whole else None
    )
    deleted = removal_scopes.deleted_count(conn, scope, [row.name for row in lists])
    if not (shown or hidden or deleted or whole):
        raise RemovalRefused(f"{describe_scope(scope)}: no such message in the archive")
    chosen = {HIDE: shown, UNHIDE: hidden, DELETE: shown + hidden}[action]
    already = {HIDE: len(hidden) + deleted, UNHIDE: len(shown), DELETE: deleted}[action]
    names = {row.id: row.name for row in lists}
    outcome = Outcome(action, scope, len(chosen), already, shown=shown, hidden=hidden, list_names=names)
    outcome.whole_list = whole and (action == DELETE or (action == HIDE) != hidden_whole)
    outcome.lists = sorted({names[row.list_id] for row in chosen} | ({lists[0].name} if outcome.whole_list else set()))
    return outcome


def _apply(conn: Connection, outcome: Outcome, lists: list[Row], reason: str, actor: str) -> None:
    action, scope = outcome.action, outcome.scope
    shown, hidden, names = outcome.shown, outcome.hidden, outcome.list_names
    outcome.removal_id = removal_id = removals.log(
        conn,
        {
            "action": action,
            "scope": describe_scope(scope, erased=action == DELETE),
            "list_name": outcome.lists[0] if len(outcome.lists) == 1 else None,
            "reason": reason,
            "actor": actor,
            "at": utc_now(),
            "messages": outcome.messages,
        },
    )
    if action == HIDE:
        removals.hide(conn, shown, names, removal_id)
        if outcome.whole_list:
            removals.hide_list(conn, lists[0].id, removal_id)
    elif action == UNHIDE:
        removals.unhide(conn, hidden)
        if outcome.whole_list:
            removals.hide_list(conn, lists[0].id, None)
    else:
        removals.delete(conn, shown, hidden, names, removal_id)
        if outcome.whole_list:
            removals.delete_list(conn, lists[0].id)
