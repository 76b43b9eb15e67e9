"""Leases and fencing of a table held by one process: the poker tables and the live Omaha
Showdown tables share them (poker/owner.py routes commands to the holder).

The process that changes a table holds its lease (`lease_owner`, `lease_epoch`,
`lease_expires_at` on the table's row): renewed by its next change, taken with the next epoch
by any other process once it lapses or when no live owner holds it. A write of the table's row
is fenced by the epoch it read, so a holder whose lease moved on writes nothing
(`StaleOwner`). A command run as the table's owner (`owners_only`) is refused under the table's
lock when another live owner holds it (`NotTheOwner`): poker/owner.py sends it there instead.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.utils import timezone


class StaleOwner(Exception):
    """A change's write named a lease the table no longer has (another process took the table
    since): refused, the transaction rolls back. A fault, not a player's refusal."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id}: the lease moved on, the write was refused")
        self.table_id = table_id


class NotTheOwner(Exception):
    """A command meant for the table's owner reached a process that does not own the table:
    another live owner holds its lease (poker/owner.py sends the command there instead).
    Raised under the table's lock before anything is done; nothing changed."""

    def __init__(self, table_id: int, holder: str) -> None:
        super().__init__(f"table {table_id} is owned by {holder}")
        self.table_id = table_id
        self.holder = holder


_identity: tuple[int, str] = (0, "")


def process_identity() -> str:
    """This process as a lease holder: its host, pid and a random token (pids are reused; a
    forked child gets its own)."""
    global _identity
    pid = os.getpid()
    if _identity[0] != pid:
        _identity = (pid, f"{socket.gethostname()}:{pid}:{secrets.token_hex(4)}")
    return _identity[1]


def owner_identity_set(name: str | None) -> None:
    """This process runs a table owner (poker/owner.py): it holds leases under the owner's
    name, so a command for a table it holds can be sent to it; None, it stopped."""
    global _identity
    _identity = (os.getpid(), name) if name else (0, "")


# Set (in this thread) while a command runs as the table's owner would (poker/owner.py): a
# change then refuses a table another live owner holds (`NotTheOwner`). The sweep and the staff
# tools send their changes to the live owner holding the table (poker/tasks.py,
# poker/services/staff.py) and change a table where they run only when none other holds it, so
# they do not set it; nor do tests and scripts, which change a table wherever they run.
_owner_only = threading.local()
OWNER_MARK = "owner|"


@contextmanager
def owners_only() -> Iterator[None]:
    _owner_only.on = True
    try:
        yield
    finally:
        _owner_only.on = False


class Leased(Protocol):
    """A row holding a lease: a poker `Table`, a live `ShowdownTable` (poker/owner.py)."""

    lease_owner: str
    lease_epoch: int
    lease_expires_at: datetime | None

    @property
    def pk(self) -> Any: ...


def owner_check(table: Leased) -> None:
    """Under the (locked) table's lock: a command run as the table's owner (`owners_only`)
    is refused, nothing done, when another live owner holds the table (`NotTheOwner`)."""
    if getattr(_owner_only, "on", False) and owned_elsewhere(table, timezone.now()):
        raise NotTheOwner(table.pk, table.lease_owner)


def owned_elsewhere(table: Leased, now: datetime) -> bool:
    """Does another live owner hold this (locked) table's lease?"""
    return (
        table.lease_owner.startswith(OWNER_MARK)
        and table.lease_owner != process_identity()
        and table.lease_expires_at is not None
        and table.lease_expires_at > now
    )


def lease_take(table: Leased, now: datetime) -> None:
    """This change's process holds the table's lease until `now` plus the lease time: renewed
    if it held it, else taken with the next epoch (fencing off the holder before). Commands go
    to a live owner holding the table (poker/owner.py), so a process changes a table it does
    not hold only when no live owner does (or a Celery sweep, a staff tool, a test); the
    caller writes it with the change."""
    lapsed = table.lease_expires_at is None or table.lease_expires_at <= now
    me = process_identity()
    if table.lease_owner != me or lapsed:
        table.lease_owner, table.lease_epoch = me, table.lease_epoch + 1
    table.lease_expires_at = now + timedelta(seconds=settings.POKER_TABLE_LEASE_SECONDS)
