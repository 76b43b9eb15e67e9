"""After a table changes: the public frame built once, each player's private part built once,
each sent only where it belongs (docs/protocol.md "Frames").

Services call `frames_for_change` inside their transaction (so the frames show exactly the
state they committed) and `send` after commit. The table's group `table-<id>` gets one public
`update`: the public events and the changed parts of the public STATE, as a spectator sees
them. A player's own part (their `you`, their hole cards, their legal actions) goes as a
`private` frame to their own group `table-<id>-user-<uid>` only, and only to the players whose
own part this change may have moved. No message on the channel layer carries one player's
hidden cards to another player's socket; never the deck or burns.

Both are serialised to JSON here, once, so a socket forwards text without encoding it again.
Each frame is built as its TypedDict of poker/frames.py (docs/protocol.md's frames, defined
once).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from config.after_commit import layer_send_queue
from config.frame_log import (
    Missed,
    frames_keep,
    frames_missed_here,
    frames_missed_in,
    frames_remember,
)
from poker.engine.hand import Hand as EngineHand
from poker.engine.views import events_for, reading_for
from poker.frames import (
    ChatFrame,
    ChatRemovedFrame,
    HandJson,
    LobbyTableUpdate,
    LobbyUpdateFrame,
    PrivateFrame,
    PrivateHand,
    SeatOfferEndedFrame,
    SeatOfferFrame,
    SessionLimitFrame,
    UpdateFrame,
)
from poker.models import Hand, Seat, Table
from poker.selectors import TableView, player_json

log = logging.getLogger(__name__)

# The lobby pages' group: defined here, below the edges, so that services telling the lobby
# about seats need not import an edge (lobby.consumers joins it from here).
LOBBY_GROUP = "lobby"

__all__ = [
    "Missed",
    "frames_and_view",
    "frames_for_change",
    "frames_missed",
    "frames_send",
    "group_name",
    "player_group_name",
    "player_json",
    "send",
    "send_heartbeats",
    "send_table_closed",
    "send_to_player",
    "user_group_name",
]

# Changes made only of these events move nothing but the running hand's betting (the hot path,
# an action or a timeout): the seats list, the last result and every `you` stay as they were,
# except for the players they name and the player now to act. Anything else (a hand starting or
# ending, sitting down, leaving, ...) sends the seats and last result, and every seated player
# (and every player the change concerned) their own part.
BETTING_EVENTS = frozenset(
    {
        "action",
        "street_dealt",
        "uncalled_bet_returned",
        "timeout",
        "showdown",
        "cards_shown",
        "cards_mucked",
        "pot_awarded",
    }
)


def group_name(table_id: int) -> str:
    return f"table-{table_id}"


def user_group_name(table_id: int, user_id: int) -> str:
    """Every socket of one player at one table: their private frames, and superseding an
    older tab."""
    return f"table-{table_id}-user-{user_id}"


def player_group_name(user_id: int) -> str:
    """Every socket of one player anywhere in the room (the lobby, any table): what concerns
    the player wherever they look, such as a seat offered from a waiting list."""
    return f"player-{user_id}"


def _dumps(frame: Mapping[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"))


# What stays the same through a hand (or is never in the public hand): left out of a change.
_HAND_FIXED = (
    "number",
    "game",
    "structure",
    "stakes",
    "button",
    "you",
    "legal_actions",
    "reading",
)


def _hand_changes(hand: HandJson, events: Sequence[Mapping[str, Any]]) -> HandJson:
    """The public hand without what the betting cannot change, and only the seats it moved:
    those the events name, or all when a street was dealt (the bets went to the pot)."""
    changes = {key: value for key, value in hand.items() if key not in _HAND_FIXED}
    if not any(event["type"] == "street_dealt" for event in events):
        named = {event.get("seat") for event in events}
        changes["seats"] = [seat for seat in hand["seats"] if seat["seat"] in named]
    return changes


def private_hand(view: TableView, seat_number: int | None, legal=None) -> PrivateHand | None:
    """A player's own part of the running hand: their seat, hole cards, the reading of their
    hand on the board so far and (when it is their turn) legal actions, tied to the hand id and
    turn they belong to."""
    engine, hand_row = view.engine, view.hand_row
    if engine is None or hand_row is None or seat_number not in engine.seats:
        return None
    if legal is None:
        legal = engine.legal_actions()
    index = engine.seats.index(seat_number)
    return {  # PrivateHand
        "id": hand_row.pk,
        "turn": hand_row.turn,
        "seat": seat_number,
        "cards": list(engine.hole_cards[index]),
        "reading": reading_for(engine, seat_number),
        "legal_actions": legal.to_dict()
        if legal is not None and legal.seat == seat_number
        else None,
    }


def frames_for_change(**kwargs: Any) -> dict[str, Any]:
    """The frames of `frames_and_view`, without the view."""
    return frames_and_view(**kwargs)[0]


def frames_and_view(
    *,
    table: Table,
    events: Sequence[Mapping[str, Any]],
    hand_row: Hand | None,
    engine: EngineHand | None,
    since: int,
    extra_user_ids: Iterable[int] = (),
    seats: dict[int, Seat] | None = None,
    seats_fresh: bool = False,
    hand_known: bool = False,
    money: tuple[dict[int, int], dict[int, int]] | None = None,
    next_seed_hash: str | None = None,
    reuse: TableView | None = None,
) -> tuple[dict[str, Any], TableView]:
    """({"version": the table's version, "public": JSON text of the `update` frame, "private":
    {user id: JSON text of their `private` frame}}, the view they were built from);
    `extra_user_ids` are players the change concerned who may hold no seat now (one who just
    left). `seats`, the change's own read of
    them, serve a change that is only betting (which moves no seat) or whose seats are
    `seats_fresh` (every seat it altered is one of these objects); any other change reads them
    afresh. `hand_known`, `money`, `next_seed_hash` and `reuse` are what the change knows
    already, as `TableView` takes them (a deal reads the table once for its two frames). The
    view is what a table's memory keeps (poker.services.unit)."""
    all_events = _events_in_order(events, hand_row=hand_row, engine=engine, since=since)
    # Cards shown by choice after the hand change its result: the frame carries the last result
    # so the seat and the last-hand panel show them, not only the log.
    betting = bool(all_events) and all(
        event["type"] in BETTING_EVENTS and not event.get("voluntary") for event in all_events
    )
    view = TableView(
        table,
        hand_row=hand_row,
        engine=engine,
        last_result=not betting,
        seats=seats if betting or seats_fresh else None,
        hand_known=hand_known,
        money=money,
        next_seed_hash=next_seed_hash,
        reuse=reuse,
    )
    user_ids = _players_concerned(view, all_events, betting=betting)
    user_ids.update(extra_user_ids)
    public = _public_frame(view, all_events, betting=betting, version=table.version)
    private = _private_frames(view, user_ids, version=table.version)
    return {"version": table.version, "public": _dumps(public), "private": private}, view


def _events_in_order(
    events: Sequence[Mapping[str, Any]],
    *,
    hand_row: Hand | None,
    engine: EngineHand | None,
    since: int,
) -> list[Mapping[str, Any]]:
    """The change's public events in the order they happened: the button draw before the hand
    it starts, then what the engine did, then what followed at the table (the reveal, players
    sat out or leaving)."""
    ordered: list[Mapping[str, Any]] = [e for e in events if e["type"] == "button_drawn"]
    if engine is not None and hand_row is not None:
        ordered.extend(
            {**event, "hand_id": hand_row.pk} for event in events_for(engine, None, since)
        )
    ordered.extend(event for event in events if event["type"] != "button_drawn")
    return ordered


def _players_concerned(
    view: TableView, events: Sequence[Mapping[str, Any]], *, betting: bool
) -> set[int]:
    """Whose own part the change may have moved: in betting, the players the events name, the
    one now to act and, when a street was dealt, every player still in the hand (their reading
    moved); otherwise every seated player."""
    owners = {seat.number: seat.player_id for seat in view.seats.values()}
    if not betting:
        return set(owners.values())
    named = {event["seat"] for event in events if isinstance(event.get("seat"), int)}
    engine = view.engine
    if engine is not None and any(event["type"] == "street_dealt" for event in events):
        named.update(seat for seat, out in zip(engine.seats, engine.folded, strict=True) if not out)
    if engine is not None and engine.to_act is not None:
        named.add(engine.to_act)
    return {owners[number] for number in named if number in owners}


def _public_frame(
    view: TableView, events: Sequence[Mapping[str, Any]], *, betting: bool, version: int
) -> UpdateFrame:
    """The `update` frame: betting sends only what it moved of the hand; anything else also
    the seats, the last result, the waiting list, the next seed's hash and, at a Sit & Go's
    table, its clock and places."""
    public: UpdateFrame = {"type": "update", "version": version, "events": events}
    hand = view.hand_json(None)
    if betting and hand is not None:
        public["hand_changes"] = _hand_changes(hand, events)
    else:
        public["hand"] = hand
    if not betting:
        public["seats"] = view.seats_json
        public["last_result"] = view.last_result
        public["waiting"] = view.waiting_json
        public["next_server_seed_hash"] = view.next_seed_hash
        # A Sit & Go's clock and places move only with such a change (a hand's end, a level
        # change): the page's tournament bar would show the snapshot's for ever otherwise.
        tournament = view.table_json.get("tournament") if view.table.is_tournament else None
        if tournament is not None:
            public["tournament"] = tournament
    return public


def _private_frames(view: TableView, user_ids: set[int], *, version: int) -> dict[int, str]:
    """{user id: JSON text of their `private` frame}, for players seated or not (one who just
    left still learns their own part)."""
    players: dict[int, Any] = {
        seat.player_id: seat.player for seat in view.seats.values() if seat.player_id in user_ids
    }
    missing = [uid for uid in user_ids if uid not in players]
    if missing:
        from django.contrib.auth import get_user_model

        for user in get_user_model().objects.filter(pk__in=missing):
            players[user.pk] = user
    view.prefetch_wallets(players)
    legal = view.engine.legal_actions() if view.engine is not None else None
    private = {}
    for user_id, player in players.items():
        seat = view.seat_of(user_id)
        frame: PrivateFrame = {
            "type": "private",
            "version": version,
            "you": view.you_json(player),
            "hand": private_hand(view, seat.number if seat else None, legal),
        }
        private[user_id] = _dumps(frame)
    return private


def log_stream(table_id: int, user_id: int | None = None) -> str:
    """The frame log's stream of a table's public frames, or of one player's private ones."""
    return f"table-{table_id}" if user_id is None else f"table-{table_id}-user-{user_id}"


def frames_missed(*, table_id: int, user_id: int | None, since: int) -> Missed | None:
    """The frames after version `since` that a socket of `user_id` (None: a spectator) was
    sent: the table's public frames and that player's own private parts, never another
    player's (config.frame_log.frames_missed_in)."""
    own = None if user_id is None else log_stream(table_id, user_id)
    return frames_missed_in(public=log_stream(table_id), private=own, since=since)


def frames_missed_at_owner(*, table_id: int, user_id: int | None, since: int) -> Missed | None:
    """`frames_missed` from the frames this process sent itself (config.frame_log
    `frames_missed_here`), for a socket on the process of the table's owner; None when they do
    not hold the answer."""
    own = None if user_id is None else log_stream(table_id, user_id)
    return frames_missed_here(public=log_stream(table_id), private=own, since=since)


def _run_on_layer(call, what: str) -> None:
    """Run `call(layer)`, an async function using the channel layer, from synchronous code.

    In a process serving sockets (daphne, the embedded room) it is handed to the process's
    line of sends on the sockets' loop and not waited for (`config.after_commit`): the
    table's owner goes on to its next command while the frames leave, in the order they were
    handed off. That also suits the embedded room's in-memory layer, whose asyncio queues wake
    their reader only when written from the sockets' own loop. Elsewhere (a Celery worker, a
    command, a test without sockets) it runs now and is waited for; a failure is logged either
    way, never raised.
    """
    layer = get_channel_layer()

    async def run() -> None:
        await call(layer)

    if layer_send_queue(run, what):
        return
    try:
        async_to_sync(call)(layer)
    except Exception:
        log.exception("could not send %s", what)


def send(*, table_id: int, frames: dict[str, Any]) -> None:
    """A poker table's change (`frames_and_view`): its frames kept and sent (`frames_send`),
    the private ones to their players' own groups, the public one to the table's group."""
    frames_send(
        version=frames["version"],
        public=(log_stream(table_id), group_name(table_id), frames["public"]),
        private=[
            (
                log_stream(table_id, int(user_id)),
                user_group_name(table_id, int(user_id)),
                text,
            )
            for user_id, text in frames["private"].items()
        ],
    )


Sent = tuple[str, str, str]  # (the frame log's stream, the channel-layer group, the JSON text)


def frames_send(*, version: int, public: Sent, private: Iterable[Sent] = ()) -> None:
    """The room's one way to publish a table's change (poker tables, live Showdown tables):
    keep its frames in the frame log (config/frame_log.py) under the table's `version`, then
    send each private frame to its player's own group (`table.private`), then the public
    frame to the table's group (`table.update`): a page that applies both shows its own part
    with the change that made it. Kept first, so any frame a socket has received can be read
    again by a socket that missed it (`frames_missed_in`). The keeping is waited for (one
    Redis round trip); the sends are handed to the process's line of sends and not waited for
    where the process serves sockets (`_run_on_layer`, config/after_commit.py), so a table's
    owner takes its next command while they leave, still in the order of the versions. A dead
    layer or log costs a log line, not the change (a page that misses frames asks for them
    again, and gets a snapshot when they are gone)."""
    private = list(private)
    stream, group, text = public
    try:
        frames_keep({stream: [(version, text)], **{s: [(version, t)] for s, _g, t in private}})
    except Exception:
        log.exception("could not keep the frames of version %s of %s", version, stream)
    frames_remember(version=version, public=(stream, text), private={s: t for s, _g, t in private})

    async def deliver(layer) -> None:
        await asyncio.gather(
            *(
                layer.group_send(own_group, {"type": "table.private", "text": own_text})
                for _s, own_group, own_text in private
            )
        )
        await layer.group_send(group, {"type": "table.update", "text": text})

    _run_on_layer(deliver, f"version {version} of {stream}")


def send_heartbeats(versions: dict[int, int], group_of: Callable[[int], str] = group_name) -> None:
    """Each table's version to its sockets, through the table's group like every update, so a
    page that hears none can tell its socket fell out of the group (docs/protocol.md).
    `group_of` names a table's group (a live Showdown table's is `showdown.live.group_name`)."""

    async def beat(layer) -> None:
        for table_id, version in versions.items():
            message = {"type": "table.heartbeat", "version": version}
            await layer.group_send(group_of(table_id), message)

    _run_on_layer(beat, "the tables' heartbeats")


def send_lobby(
    *, table_id: int, seats_taken: int, seats_playing: int, kind: str | None = None
) -> None:
    """Tell lobby sockets a table's seats changed (they refresh their table list). `kind`
    "showdown": a live Omaha Showdown table's (showdown.live), whose ids are not poker's."""
    update: LobbyTableUpdate = {
        "table": table_id,
        "seats_taken": seats_taken,
        "seats_playing": seats_playing,
    }
    if kind == "showdown":
        update["kind"] = "showdown"
    message: LobbyUpdateFrame = {"type": "lobby.update", "update": update}

    async def deliver(layer) -> None:
        await layer.group_send(LOBBY_GROUP, message)

    _run_on_layer(deliver, f"the lobby's update of table {table_id}")


def send_player_excluded(*, table_ids: list[int], user_id: int, message: str) -> None:
    """Tell a player's sockets at every table that they started a time-out or self-exclusion:
    each sends the page the reason and closes (responsible.services.exclusion_start)."""

    async def tell(layer) -> None:
        for table_id in table_ids:
            await layer.group_send(
                user_group_name(table_id, user_id),
                {"type": "table.player_excluded", "message": message},
            )

    _run_on_layer(tell, f"the exclusion of player {user_id} to their sockets")


def send_table_closed(*, table_id: int, tournament_id: int) -> None:
    """A Sit & Go's table closed for good, to its sockets through the table's group after its
    last frames: each says `table_closed` and closes (poker.consumers)."""
    message = {"type": "table.closed", "tournament": tournament_id}

    async def deliver(layer) -> None:
        await layer.group_send(group_name(table_id), message)

    _run_on_layer(deliver, f"the closing of table {table_id}")


def send_table_frame(*, table_id: int, frame: ChatFrame | ChatRemovedFrame) -> None:
    """A frame outside the table's versioned state (chat) to every socket at the table, as
    it is: the sockets forward `table.update` messages' text unchanged."""
    message = {"type": "table.update", "text": _dumps(frame)}

    async def deliver(layer) -> None:
        await layer.group_send(group_name(table_id), message)

    _run_on_layer(deliver, f"a {frame['type']} frame to table {table_id}")


def send_to_player(
    *, user_id: int, frame: SeatOfferFrame | SeatOfferEndedFrame | SessionLimitFrame
) -> None:
    """A frame to every open page of one player (their lobby and table sockets)."""
    message = {"type": "player.notice", "text": _dumps(frame)}

    async def deliver(layer) -> None:
        await layer.group_send(player_group_name(user_id), message)

    _run_on_layer(deliver, f"a notice to player {user_id}")
