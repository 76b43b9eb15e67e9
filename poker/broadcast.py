"""After a table changes: each recipient's frame, computed once, sent through the channel layer.

Services call `frames_for_change` inside their transaction (so the frames show exactly the
state they committed) and `send` after commit. One `group_send` to `table-<id>` carries a frame
per seated player (and per player the change concerned, e.g. one who just left) plus the
public frame; each socket forwards only its own user's frame, or the public one. Hidden cards
are filtered here, per recipient, by the engine's own views: never the deck, burns, another's
hole cards before they are shown, or another's legal actions.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from poker.engine.hand import Hand as EngineHand
from poker.engine.views import events_for
from poker.models import Hand, Table
from poker.selectors import TableView, player_json

log = logging.getLogger(__name__)

__all__ = [
    "frames_for_change",
    "group_name",
    "player_json",
    "send",
    "send_heartbeats",
    "user_group_name",
]


def group_name(table_id: int) -> str:
    return f"table-{table_id}"


def user_group_name(table_id: int, user_id: int) -> str:
    """Every socket of one player at one table (to supersede an older tab)."""
    return f"table-{table_id}-user-{user_id}"


def frames_for_change(
    *,
    table: Table,
    events: list[dict[str, Any]],
    hand_row: Hand | None,
    engine: EngineHand | None,
    since: int,
    extra_user_ids: Iterable[int] = (),
) -> dict[str, Any]:
    """{"frames": {user id (str): update frame}, "public": update frame}."""
    view = TableView(table, hand_row=hand_row, engine=engine)
    recipients: dict[int, Any] = {seat.player_id: seat.player for seat in view.seats.values()}
    missing = [uid for uid in extra_user_ids if uid not in recipients]
    if missing:
        from django.contrib.auth import get_user_model

        for user in get_user_model().objects.filter(pk__in=missing):
            recipients[user.pk] = user

    view.prefetch_wallets(recipients)

    def events_seen_by(seat_number: int | None) -> list[dict[str, Any]]:
        seen = list(events)
        if engine is not None and hand_row is not None:
            in_hand = seat_number if seat_number in engine.seats else None
            seen.extend(
                {**event, "hand_id": hand_row.pk} for event in events_for(engine, in_hand, since)
            )
        return seen

    frames = {}
    for user_id, player in recipients.items():
        seat = view.seat_of(user_id)
        frames[str(user_id)] = {
            "type": "update",
            "state": view.state_for(player),
            "events": events_seen_by(seat.number if seat else None),
        }
    public_state = view.state_for(None)
    return {
        "frames": frames,
        "public": {"type": "update", "state": public_state, "events": events_seen_by(None)},
    }


# The event loop serving the sockets, for the embedded in-memory layer (set by the consumer).
_socket_loop: asyncio.AbstractEventLoop | None = None


def remember_socket_loop(loop: asyncio.AbstractEventLoop) -> None:
    global _socket_loop
    _socket_loop = loop


def _run_on_layer(call) -> None:
    """Run `call(layer)`, an async function using the channel layer, from synchronous code.

    The embedded room's in-memory layer keeps plain asyncio queues, which only wake their
    reader when written from the sockets' own loop; a timer running in the embedded worker
    thread therefore hands its send to that loop.
    """
    layer = get_channel_layer()
    loop = _socket_loop
    if isinstance(layer, InMemoryChannelLayer) and loop is not None and loop.is_running():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not loop:
            asyncio.run_coroutine_threadsafe(call(layer), loop).result(timeout=5)
            return
    async_to_sync(call)(layer)


def send(*, table_id: int, frames: dict[str, Any]) -> None:
    """One group message to every socket at the table; a dead layer costs a log line, not the
    change (clients get a fresh snapshot when they reconnect or notice they are behind)."""
    message = {"type": "table.update", **frames}

    async def deliver(layer) -> None:
        await layer.group_send(group_name(table_id), message)

    try:
        _run_on_layer(deliver)
    except Exception:
        log.exception("could not broadcast a change at table %s", table_id)


def send_heartbeats(versions: dict[int, int]) -> None:
    """Each table's version to its sockets, through the table's group like every update, so a
    page that hears none can tell its socket fell out of the group (docs/protocol.md)."""

    async def beat(layer) -> None:
        for table_id, version in versions.items():
            message = {"type": "table.heartbeat", "version": version}
            await layer.group_send(group_name(table_id), message)

    try:
        _run_on_layer(beat)
    except Exception:
        log.exception("could not send the tables' heartbeats")


def send_lobby(*, table_id: int, seats_taken: int) -> None:
    """Tell lobby sockets a table's seats changed (they refresh their table list)."""
    from lobby.consumers import LOBBY_GROUP

    message = {"type": "lobby.update", "update": {"table": table_id, "seats_taken": seats_taken}}
    try:
        async_to_sync(get_channel_layer().group_send)(LOBBY_GROUP, message)
    except Exception:
        log.exception("could not tell the lobby about table %s", table_id)


def send_player_excluded(*, table_ids: list[int], user_id: int, message: str) -> None:
    """Tell a player's sockets at every table that they started a time-out or self-exclusion:
    each sends the page the reason and closes (responsible.services.exclusion_start)."""

    async def tell(layer) -> None:
        for table_id in table_ids:
            await layer.group_send(
                user_group_name(table_id, user_id),
                {"type": "table.player_excluded", "message": message},
            )

    try:
        _run_on_layer(tell)
    except Exception:
        log.exception("could not close the sockets of excluded player %s", user_id)
