"""The owner's side of a live Showdown table's socket command: the typed command, rebuilt from
what crossed to the owner, calls its `showdown.live` service as service(player=, table_id=,
**its fields); `key` becomes the service's `idempotency_key` for this table. Registered as a
callable with the owner in ShowdownConfig.ready."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from poker import owner
from showdown import live
from showdown.commands import ConnectionSet, Decide, LeaveSeat, PlaceWagers, TakeSeat

SERVICES: dict[type, Callable[..., Any]] = {
    TakeSeat: live.live_seat_take,
    LeaveSeat: live.live_seat_leave,
    PlaceWagers: live.live_wagers_place,
    Decide: live.live_decide,
    ConnectionSet: live.live_connection_set,
}
COMMANDS: dict[str, type] = {command.__name__: command for command in SERVICES}


def command_here(payload: dict[str, Any]) -> str:
    """Run a socket's command here, at the table's owner."""
    command = COMMANDS[payload["command"]]
    arguments = dict(payload["fields"])
    if "key" in arguments:
        arguments["idempotency_key"] = f"live-{payload['table']}-{arguments.pop('key')}"
    user = owner.socket_command_user(payload)
    SERVICES[command](player=user, table_id=payload["table"], **arguments)
    return "done"
