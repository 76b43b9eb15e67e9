"""The live Showdown table's socket (docs/protocol.md, "Live Omaha Showdown").

Thin edge: it checks each frame's shape with config.inputs, calls a `showdown.live` service
(which owns the rules, the lock and the transaction) and, whenever the table changes, reads
this user's own view (`live_table_view`): so a player's hole cards reach only that player's
sockets before the round settles, and the deck reaches nobody. A bad frame gets an error
frame to this socket alone and changes nothing; the socket stays open.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.translation import gettext as _

from config.channel_health import GroupRejoinMixin
from config.db_threads import in_db_thread
from config.errors import Refused
from config.i18n import socket_language_activate
from config.inputs import parse_cents, parse_idempotency_key, parse_json_object
from poker.broadcast import remember_socket_loop
from showdown import live
from showdown.live_selectors import live_table_view

log = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NO_TABLE = 4404
MAX_FRAME_BYTES = 4096


class FrameError(Refused):
    """A frame of the wrong shape, refused before any service sees it."""


def _key(frame: dict) -> str:
    return parse_idempotency_key(
        frame.get("key"), field="key", min_length=8, max_length=64, error=FrameError
    )


def _seat(frame: dict) -> int:
    value = frame.get("seat")
    if isinstance(value, bool) or not isinstance(value, int):
        raise FrameError(
            "bad_field", _("seat must be a whole number, not %(value)s.") % {"value": repr(value)}
        )
    return value


def _cents(frame: dict, name: str, *, optional: bool) -> int:
    if optional and frame.get(name) is None:
        return 0
    return parse_cents(frame.get(name), field=name, minimum=0 if optional else 1, error=FrameError)


class LiveShowdownConsumer(GroupRejoinMixin, AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await socket_language_activate(self.scope)  # refusals in the player's language
        view = await _view(self.table_id, self.user)
        if view is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        remember_socket_loop(asyncio.get_running_loop())
        self.group = live.group_name(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # Re-joined periodically, so a channel layer that lost its data (a Redis flush)
        # reaches this socket again within CHANNEL_REJOIN_SECONDS (config/channel_health.py).
        self.groups_rejoin_start([self.group])
        await self.accept()
        await self.send_frame({"type": "snapshot", "state": view})

    async def disconnect(self, code: int) -> None:
        await self.groups_rejoin_stop()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        key = None
        try:
            if text_data is None or len(text_data.encode("utf-8", "surrogatepass")) > (
                MAX_FRAME_BYTES
            ):
                raise FrameError("bad_frame", _("Send one JSON text frame of at most 4 KiB."))
            try:
                frame = parse_json_object(text_data, what="frame")
            except Refused as error:
                raise FrameError("bad_frame", error.message) from error
            if isinstance(frame.get("key"), str):
                key = frame["key"][:64]
            await self.handle(frame)
        except Refused as error:
            await self.send_frame(
                {"type": "error", "code": error.code, "message": error.message, "key": key}
            )
        except Exception:  # a bug must not cost the player their socket
            log.exception("showdown %s: frame from user %s failed", self.table_id, self.user.pk)
            await self.send_frame(
                {
                    "type": "error",
                    "code": "server_error",
                    "message": "Something went wrong on our side; nothing changed.",
                    "key": key,
                }
            )

    async def handle(self, frame: dict) -> None:
        kind = frame.get("type")
        if kind == "sit":
            await self.call(live.live_seat_take, seat=_seat(frame))
        elif kind == "leave":
            await self.call(live.live_seat_leave)
        elif kind == "wager":
            await self.call(
                live.live_wagers_place,
                ante=_cents(frame, "ante", optional=False),
                hole_card_bonus=_cents(frame, "hole_card_bonus", optional=True),
                final_hand_bonus=_cents(frame, "final_hand_bonus", optional=True),
                idempotency_key=f"live-{self.table_id}-{_key(frame)}",
            )
        elif kind == "decide":
            decision = frame.get("decision")
            if decision not in ("fold", "call", "raise"):
                raise FrameError("bad_field", _('decision must be "fold", "call" or "raise".'))
            await self.call(
                live.live_decide,
                decision=decision,
                idempotency_key=f"live-{self.table_id}-{_key(frame)}",
            )
        elif kind == "snapshot":
            await self.groups_rejoin()
            await self.showdown_changed({})
        elif isinstance(kind, str):
            raise FrameError(
                "unknown_type", _("The table does not know %(kind)s frames.") % {"kind": repr(kind)}
            )
        else:
            raise FrameError("bad_frame", _('A frame is a JSON object with a string "type".'))

    async def call(self, service, **kwargs: Any) -> None:
        await in_db_thread(service)(player=self.user, table_id=self.table_id, **kwargs)
        # A replayed frame changes nothing and so broadcasts nothing: answer it with the view.
        await self.showdown_changed({})

    async def showdown_changed(self, message: dict) -> None:
        """The table changed (after commit): this user's own view, read now."""
        view = await _view(self.table_id, self.user)
        if view is not None:
            await self.send_frame({"type": "state", "state": view})

    async def send_frame(self, frame: dict) -> None:
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))


@database_sync_to_async
def _view(table_id: int, user) -> dict | None:
    return live_table_view(table_id=table_id, user=user)
