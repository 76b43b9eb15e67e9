"""Malformed and out-of-turn frames for the table socket (docs/protocol.md).

Every frame here must be refused: the sender gets one `error` frame (never `server_error`),
its socket stays open, no other socket hears anything, and the table, the hand and every
balance stay exactly as they were. Used by tests/poker/test_frame_fuzz.py (a few thousand
frames in CI) and by bench/chaos.py (the long form).

The table: three players on the flop of a pot-limit Omaha hand (each has acted once, so the
player to act has a `seq` to repeat) and a funded spectator, all on sockets through
config.asgi on the Redis layer (Channels' communicator), with timers an hour long so that only
a frame could change anything. Frames are drawn from a seeded `random.Random`: each kind below
is a generator that knows the table (whose turn, which seats are free, what is legal) well
enough to stay refused: broken JSON, binary frames, JSON that is not an object, a `type` that
is missing, not a string or unknown, deep nesting, frames over 4 KiB (also in multi-byte
characters), fields of the wrong type or range (huge, negative, float, string, NaN amounts),
forged seat or player fields, acting out of turn or as a spectator, a stale turn or a repeated
seq, actions the engine must refuse, seat management that does not apply, NUL bytes, lone
surrogates and other odd characters in any string.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

KNOWN_TYPES = (
    "act",
    "sit",
    "sit_out",
    "sit_in",
    "post_big_blind",
    "wait_big_blind",
    "top_up",
    "leave",
    "ping",
)
ACTIONS = ("fold", "check", "call", "bet", "raise", "all_in")
MAX_CENTS = 10**11
# Never empty: appended to a real action or type, it must make it unknown.
ODD_TEXT = ("\x00", "\x00" * 9, "\ud800", "²", "١٢٣", "€" * 3, "\u202e", "😀", "\n", " ")
# Values that are not a whole number (for turn, seq, seat) and not whole positive cents.
NOT_WHOLE = (
    None, "1", "", "²", "1e3", "NaN", 1.5, 2.0, -0.0, True, False, [], [1], {}, {"n": 1},
    float("nan"), float("inf"), float("-inf"), "\x00",
)  # fmt: skip
BAD_CENTS = (*NOT_WHOLE, 0, -1, -100, MAX_CENTS + 1, 10**30, -(10**30), 2**63, 1e308, 100.5)


@dataclass
class FuzzView:
    """What the generators need to know to send only frames that must be refused."""

    table_id: int
    turn: int
    max_seats: int
    min_buy_in: int
    max_buy_in: int
    taken_seats: list[int]
    free_seats: list[int]
    to_act_seat: int
    to_act_last_seq: int
    waiting_last_seq: int
    # Seat status and posts_big_blind_next of the seated senders ("to_act", "waiting").
    statuses: dict[str, tuple[str, bool]]
    # The player to act's legal actions (poker.engine.hand.LegalActions).
    can_fold: bool
    can_check: bool
    call: int
    raise_kind: str | None
    min_to: int
    max_to: int
    player_ids: dict[str, int] = field(default_factory=dict)  # sender -> user id


@dataclass
class Probe:
    sender: str  # "to_act", "waiting" (seated, in the hand) or "spectator"
    kind: str
    text: str | None = None
    data: bytes | None = None

    def short(self) -> str:
        body = repr(self.text if self.data is None else self.data)
        if len(body) > 160:
            body = f"{body[:120]}...({len(body)} chars)...{body[-20:]}"
        return f"{self.kind} from {self.sender}: {body}"


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=True, ensure_ascii=False)


def _odd(rng: random.Random) -> str:
    return rng.choice(ODD_TEXT) * rng.randint(1, 3)


def _fresh_seq(rng: random.Random, last: int) -> int:
    return last + rng.randint(1, 10**6)


def _legal_looking(view: FuzzView) -> str:
    """An action the player to act may take now (so only who or when makes it wrong)."""
    return "check" if view.can_check else "call"


# -- the generators, each returning one frame that must be refused


def _not_json(rng: random.Random, view: FuzzView) -> Probe:
    good = _dumps({"type": "act", "action": "check", "turn": view.turn, "seq": 1})
    text = rng.choice(
        [
            "".join(chr(rng.randint(32, 126)) for _ in range(rng.randint(1, 200))).replace(
                "{", "("
            ),
            good[: rng.randint(0, len(good) - 1)],
            good + rng.choice(["x", "}", " 1", ",", "\x00"]),
            "{'type': 'act'}",
            '{"type": "act",}',
            '{"type": "a\nct"}',
            "\ufeff" + good,
            "\x00" * rng.randint(1, 64),
            '{"type": "ping"' + "\x00" + "}",
            '{"type": "act", "amount": 01}',
            '{"type": "act", "amount": +1}',
            '{"type": "act", "amount": .5}',
            '{"type": "act", "amount": 0x10}',
            '"\\ud800',
            "",
        ]
    )
    return Probe(rng.choice(["to_act", "waiting", "spectator"]), "not_json", text=text)


def _binary(rng: random.Random, view: FuzzView) -> Probe:
    data = rng.choice(
        [
            bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 64))),
            _dumps({"type": "act", "action": "check", "turn": view.turn, "seq": 1}).encode(),
            b"\xff\xfe\x00",
        ]
    )
    return Probe(rng.choice(["to_act", "waiting", "spectator"]), "binary", data=data)


def _not_object(rng: random.Random, view: FuzzView) -> Probe:
    value = rng.choice(
        [0, -1, 1.5, "act", "", None, True, [], [{"type": "act"}], [[["ping"]]], 10**40]
    )
    text = rng.choice([_dumps(value), "NaN", "Infinity", "-Infinity"])
    return Probe(rng.choice(["to_act", "waiting", "spectator"]), "not_object", text=text)


def _bad_type(rng: random.Random, view: FuzzView) -> Probe:
    frame: dict[str, Any] = {"action": "check", "turn": view.turn, "seq": 1}
    if rng.random() < 0.8:
        frame["type"] = rng.choice([None, 7, 1.5, True, [], ["act"], {"type": "act"}, 0])
    else:
        frame["Type"] = "act"
    return Probe(rng.choice(["to_act", "waiting", "spectator"]), "bad_type", text=_dumps(frame))


def _unknown_type(rng: random.Random, view: FuzzView) -> Probe:
    known = rng.choice(KNOWN_TYPES)
    kind = rng.choice(
        [
            known.upper(),
            known.title(),
            " " + known,
            known + " ",
            known + "\x00",
            "\x00" + known,
            known + "s",
            known.replace("a", "\u0430"),  # a Cyrillic a
            known + _odd(rng),
            "",
            "x" * rng.randint(1, 3000),
            "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(1, 20))),
            "__class__",
            "receive",
            "table.update",
            "websocket.disconnect",
        ]
    )
    if kind in KNOWN_TYPES:
        kind += "_"
    frame = {"type": kind, "action": "check", "turn": view.turn, "seq": 1}
    return Probe(rng.choice(["to_act", "waiting", "spectator"]), "unknown_type", text=_dumps(frame))


def _deep(rng: random.Random, view: FuzzView) -> Probe:
    depth = rng.choice([50, 200, 900, 1000, 1500, 2000])
    inner = rng.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth])
    text = rng.choice(
        [
            inner if inner.startswith("[") else '{"type":"act","x":' + inner + "}",
            f'{{"type":"act","action":"check","turn":{view.turn},"seq":1,"amount":{inner}}}',
            '{"type":' + inner + "}",
        ]
    )
    if len(text.encode()) > 4096:  # keep it under the size limit: only the depth is wrong
        text = '{"type":"act","x":' + "[" * 1000 + "]" * 1000 + "}"
    return Probe(rng.choice(["to_act", "waiting", "spectator"]), "deep", text=text)


def _oversized(rng: random.Random, view: FuzzView) -> Probe:
    # Refused for its size; were the size let through, its seq of 0 would still be refused.
    frame = {"type": "act", "action": _legal_looking(view), "turn": view.turn, "seq": 0}
    size = rng.choice([4097, 4200, 8192, 65_536, 1 << 20])
    if rng.random() < 0.4:
        # Under 4096 characters but over 4096 bytes of UTF-8.
        frame["pad"] = rng.choice(["€", "😀", "é"]) * rng.randint(1400, 4000)
    else:
        frame["pad"] = "x" * size
    return Probe(rng.choice(["to_act", "waiting", "spectator"]), "oversized", text=_dumps(frame))


def _bad_act_fields(rng: random.Random, view: FuzzView) -> Probe:
    sender = rng.choice(["to_act", "waiting", "spectator"])
    frame: dict[str, Any] = {
        "type": "act",
        "action": _legal_looking(view),
        "turn": view.turn,
        "seq": _fresh_seq(rng, view.to_act_last_seq),
    }
    broken = rng.choice(["action", "amount", "turn", "seq", "turn_low", "seq_range", "missing"])
    if broken == "action":
        frame["action"] = rng.choice([None, 1, True, [], {}, ["call"], {"action": "call"}])
    elif broken == "amount":  # (null is no amount: not broken)
        frame["amount"] = rng.choice([b for b in BAD_CENTS if b is not None])
        frame["action"] = rng.choice(["bet", "raise", "call", "check"])
    elif broken == "turn":
        frame["turn"] = rng.choice(NOT_WHOLE)
    elif broken == "seq":
        frame["seq"] = rng.choice(NOT_WHOLE)
    elif broken == "turn_low":
        frame["turn"] = rng.choice([0, -1, -(10**20)])
    elif broken == "seq_range":
        frame["seq"] = rng.choice([0, -1, -(10**20), MAX_CENTS + 1, 10**30])
    else:
        del frame[rng.choice(["action", "turn", "seq"])]
    return Probe(sender, f"bad_act_{broken}", text=_dumps(frame))


def _bad_seat_fields(rng: random.Random, view: FuzzView) -> Probe:
    sender = rng.choice(["to_act", "waiting", "spectator"])
    kind = rng.choice(["sit", "top_up", "sit_in"])
    if kind == "sit":
        frame: dict[str, Any] = {
            "type": "sit",
            "seat": rng.choice(view.free_seats),
            "buy_in": view.max_buy_in,
            "post_big_blind": False,
        }
        broken = rng.choice(["seat", "buy_in", "post_big_blind", "key"])
        if broken == "seat":
            frame["seat"] = rng.choice(NOT_WHOLE)
        elif broken == "buy_in":
            frame["buy_in"] = rng.choice([b for b in BAD_CENTS if b is not None])
        elif broken == "post_big_blind":
            frame["post_big_blind"] = rng.choice([None, 0, 1, "true", "yes", [], {}])
        else:
            frame["key"] = rng.choice([7, [], {}, True, "short", "k" * 65, "😀" * 65])
    elif kind == "top_up":
        frame = {"type": "top_up", "amount": rng.choice([b for b in BAD_CENTS if b is not None])}
        if rng.random() < 0.3:
            frame = {"type": "top_up", "amount": 500, "key": rng.choice([1, [], "x", "y" * 65])}
    else:
        frame = {"type": "sit_in", "post_big_blind": rng.choice([None, 0, 1, "false", []])}
    return Probe(sender, f"bad_{kind}_fields", text=_dumps(frame))


def _forged(rng: random.Random, view: FuzzView) -> Probe:
    """Acting as someone else: the frame names the seat or the player to act."""
    sender = rng.choice(["waiting", "spectator"])
    frame: dict[str, Any] = {
        "type": "act",
        "action": _legal_looking(view),
        "turn": view.turn,
        "seq": _fresh_seq(rng, max(view.to_act_last_seq, view.waiting_last_seq)),
    }
    forgery = rng.choice(["seat", "player", "user", "user_id", "you", "table", "all"])
    fakes = {
        "seat": view.to_act_seat,
        "player": view.player_ids.get("to_act"),
        "user": view.player_ids.get("to_act"),
        "user_id": view.player_ids.get("to_act"),
        "you": {"seat": view.to_act_seat},
        "table": view.table_id,
    }
    if forgery == "all":
        frame.update(fakes)
    else:
        frame[forgery] = fakes[forgery]
    return Probe(sender, "forged", text=_dumps(frame))


def _out_of_turn(rng: random.Random, view: FuzzView) -> Probe:
    sender = rng.choice(["waiting", "spectator"])
    action = rng.choice(ACTIONS)
    frame: dict[str, Any] = {
        "type": "act",
        "action": action,
        "turn": view.turn,
        "seq": _fresh_seq(rng, max(view.to_act_last_seq, view.waiting_last_seq)),
    }
    if action in ("bet", "raise"):
        frame["amount"] = rng.randint(1, view.max_buy_in)
    return Probe(sender, "out_of_turn", text=_dumps(frame))


def _stale_turn(rng: random.Random, view: FuzzView) -> Probe:
    turns = [view.turn + rng.randint(1, 5), 10**9, 2**62]
    if view.turn > 1:
        turns += [view.turn - 1, rng.randint(1, view.turn - 1)]
    frame = {
        "type": "act",
        "action": _legal_looking(view),
        "turn": rng.choice(turns),
        "seq": _fresh_seq(rng, view.to_act_last_seq),
    }
    return Probe("to_act", "stale_turn", text=_dumps(frame))


def _stale_seq(rng: random.Random, view: FuzzView) -> Probe:
    if view.to_act_last_seq < 1:  # nothing to repeat yet
        return _stale_turn(rng, view)
    frame = {
        "type": "act",
        "action": _legal_looking(view),
        "turn": view.turn,
        "seq": rng.randint(1, view.to_act_last_seq),
    }
    return Probe("to_act", "stale_seq", text=_dumps(frame))


def _illegal_actions(rng: random.Random, view: FuzzView) -> list[tuple[str, Any]]:
    """(action, amount) pairs the engine must refuse for the player to act, right now."""
    odd = rng.choice(
        [
            rng.choice(ACTIONS).upper(),
            rng.choice(ACTIONS) + _odd(rng),
            "shove",
            "",
            "muck",
            "fold ",
            "all-in",
        ]
    )
    found: list[tuple[str, Any]] = [(odd, None), (odd, 100)]
    if not view.can_fold:
        found.append(("fold", None))
    if not view.can_check:
        found.append(("check", None))
    if not view.call:
        found.append(("call", None))
    for kind in ("bet", "raise"):
        if kind != view.raise_kind:
            found.append((kind, rng.randint(view.min_to or 100, (view.max_to or 100) + 100)))
    if view.raise_kind:
        if view.min_to > 1:
            found.append((view.raise_kind, rng.randint(1, view.min_to - 1)))
        found.append((view.raise_kind, rng.randint(view.max_to + 1, MAX_CENTS)))
        found.append((view.raise_kind, None))
    # Amounts on actions that take none.
    found.append((rng.choice(["fold", "check", "call", "all_in"]), rng.randint(1, 10**6)))
    return found


def _illegal(rng: random.Random, view: FuzzView) -> Probe:
    action, amount = rng.choice(_illegal_actions(rng, view))
    frame: dict[str, Any] = {
        "type": "act",
        "action": action,
        "turn": view.turn,
        "seq": _fresh_seq(rng, view.to_act_last_seq),
    }
    if amount is not None or rng.random() < 0.5:
        frame["amount"] = amount
    return Probe("to_act", "illegal_action", text=_dumps(frame))


def _seat_refused(rng: random.Random, view: FuzzView) -> Probe:
    """Seat management that does not apply to the sender now (or names a seat it cannot take)."""
    key = rng.choice([None, None, "fuzz-" + "k" * 10, "\x00" * 12, "ключ-ключ-ключ", "😀" * 8])
    spectator_frames = [
        {"type": rng.choice(["sit_out", "leave", "post_big_blind", "wait_big_blind"])},
        {"type": "sit_in", "post_big_blind": rng.choice([True, False])},
        {"type": "top_up", "amount": rng.randint(1, view.max_buy_in)},
        {
            "type": "sit",
            "seat": rng.choice(view.taken_seats),
            "buy_in": view.max_buy_in,
            "post_big_blind": False,
        },
        {
            "type": "sit",
            "seat": rng.choice([0, -1, view.max_seats + 1, 10**12]),
            "buy_in": view.max_buy_in,
            "post_big_blind": True,
        },
        {
            "type": "sit",
            "seat": rng.choice(view.free_seats),
            "buy_in": rng.choice(
                [rng.randint(1, view.min_buy_in - 1), rng.randint(view.max_buy_in + 1, MAX_CENTS)]
            ),
            "post_big_blind": False,
        },
    ]
    seated_frames = [
        {
            "type": "sit",
            "seat": rng.choice(view.free_seats),
            "buy_in": view.max_buy_in,
            "post_big_blind": False,
        },
        {"type": "sit_in", "post_big_blind": rng.choice([True, False])},
        {"type": "top_up", "amount": rng.randint(1, view.max_buy_in)},
    ]
    sender = rng.choice(["to_act", "waiting", "spectator"])
    if sender != "spectator":
        status, posts_big_blind = view.statuses[sender]
        if status != "waiting_big_blind":
            seated_frames.append({"type": "post_big_blind"})
        if not (status == "playing" and posts_big_blind):
            seated_frames.append({"type": "wait_big_blind"})
    frame = rng.choice(spectator_frames if sender == "spectator" else seated_frames)
    if key is not None and frame["type"] in ("sit", "top_up"):
        frame = {**frame, "key": key}
    return Probe(sender, f"refused_{frame['type']}", text=_dumps(frame))


# (weight, generator): the state-aware kinds get the most frames.
GENERATORS: list[tuple[int, Callable[[random.Random, FuzzView], Probe]]] = [
    (6, _not_json),
    (3, _binary),
    (4, _not_object),
    (4, _bad_type),
    (6, _unknown_type),
    (4, _deep),
    (3, _oversized),
    (14, _bad_act_fields),
    (8, _bad_seat_fields),
    (8, _forged),
    (8, _out_of_turn),
    (8, _stale_turn),
    (6, _stale_seq),
    (12, _illegal),
    (10, _seat_refused),
]


def probes(rng: random.Random, view: FuzzView, count: int) -> list[Probe]:
    """`count` frames that must all be refused, drawn from `rng`."""
    weights = [weight for weight, _ in GENERATORS]
    makers = [maker for _, maker in GENERATORS]
    return [rng.choices(makers, weights)[0](rng, view) for _ in range(count)]


# -- the table and the run (these need Django)


@dataclass
class FuzzReport:
    seed: int
    sent: int = 0
    seconds: float = 0.0
    ping_per_second: float = 0.0
    codes: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def fuzz_table_setup(prefix: str) -> dict:
    """Three players on the flop of a pot-limit Omaha hand (each has acted once) and a funded
    spectator; timers an hour long. Returns the ids and the FuzzView facts."""
    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand, Table
    from tests.factories import make_funded_player, make_seated_player, make_table

    table = make_table(
        name=f"{prefix} table",
        action_seconds=3600,
        next_hand_delay_seconds=3600,
        disconnect_grace_seconds=0,
    )
    players = {n: make_seated_player(table, f"{prefix}-{n}", n) for n in (1, 2, 3)}
    spectator = make_funded_player(f"{prefix}-watcher")
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    hand = services.table_hand_start(table=table)
    for _ in range(10):  # everyone calls or checks through the preflop round
        hand = Hand.objects.get(pk=hand.pk)
        engine = EngineHand.from_dict(hand.state)
        if engine.street_name != "preflop":
            break
        legal = engine.legal_actions()
        services.table_act(
            table=table,
            player=players[legal.seat],
            action="call" if legal.call else "check",
            amount=None,
            turn=hand.turn,
            seq=hand.turn,
        )
    hand = Hand.objects.get(pk=hand.pk)
    engine = EngineHand.from_dict(hand.state)
    legal = engine.legal_actions()
    to_act = players[legal.seat]
    waiting_seat = next(n for n in players if n != legal.seat)
    waiting = players[waiting_seat]
    rows = {seat.number: seat for seat in table.seats.all()}
    return {
        "table_id": table.pk,
        "users": {"to_act": to_act.pk, "waiting": waiting.pk, "spectator": spectator.pk},
        "others": [p.pk for n, p in players.items() if p not in (to_act, waiting)],
        "view": FuzzView(
            table_id=table.pk,
            turn=hand.turn,
            max_seats=table.max_seats,
            min_buy_in=table.min_buy_in,
            max_buy_in=table.max_buy_in,
            taken_seats=sorted(players),
            free_seats=[n for n in range(1, table.max_seats + 1) if n not in players],
            to_act_seat=legal.seat,
            to_act_last_seq=hand.last_seq_of(to_act.pk),
            waiting_last_seq=hand.last_seq_of(waiting.pk),
            statuses={
                role: (rows[number].status, rows[number].posts_big_blind_next)
                for role, number in (("to_act", legal.seat), ("waiting", waiting_seat))
            },
            can_fold=legal.can_fold,
            can_check=legal.can_check,
            call=legal.call or 0,
            raise_kind=legal.raise_kind,
            min_to=legal.min_to or 0,
            max_to=legal.max_to or 0,
            player_ids={"to_act": to_act.pk, "waiting": waiting.pk, "spectator": spectator.pk},
        ),
    }


def table_fingerprint(table_id: int) -> dict:
    """Everything a refused frame must leave alone: the table row, its seats (but which socket
    is live), its hands, every account's balance and hand mark, and the ledger's size."""
    from cashier.models import Account, Entry, Posting
    from poker.models import Hand, HandIncident, Seat, Table

    seats = Seat.objects.filter(table_id=table_id).order_by("number").values()
    return {
        "table": list(Table.objects.filter(pk=table_id).values()),
        "seats": [
            {k: v for k, v in seat.items() if k not in ("socket", "connected", "disconnected_at")}
            for seat in seats
        ],
        "hands": list(Hand.objects.filter(table_id=table_id).order_by("pk").values()),
        "accounts": list(Account.objects.order_by("pk").values_list("pk", "balance", "in_hand_id")),
        "entries": Entry.objects.count(),
        "postings": Posting.objects.count(),
        "incidents": HandIncident.objects.count(),
    }


def _differences(before: dict, after: dict) -> list[str]:
    return [
        f"{key} changed: {str(before[key])[:300]} -> {str(after[key])[:300]}"
        for key in before
        if before[key] != after[key]
    ]


async def fuzz_run(*, count: int, seed: int, prefix: str, batch: int = 500) -> FuzzReport:
    """Set the table up, open the sockets, send `count` frames (checking the table after each
    batch), and report every frame that was not simply refused."""
    from channels.db import database_sync_to_async
    from django.contrib.auth import get_user_model

    from tests.factories import TableSocket

    setup = await database_sync_to_async(fuzz_table_setup)(prefix)
    view: FuzzView = setup["view"]
    users = {
        role: await database_sync_to_async(get_user_model().objects.get)(pk=pk)
        for role, pk in setup["users"].items()
    }
    others = [
        await database_sync_to_async(get_user_model().objects.get)(pk=pk) for pk in setup["others"]
    ]
    report = FuzzReport(seed=seed)

    async def open_socket(user) -> TableSocket:
        socket = await TableSocket.open(view.table_id, user)
        assert socket.connected, f"the table socket refused {user} ({socket.close_code})"
        await socket.receive()  # the snapshot
        return socket

    sockets = {role: await open_socket(user) for role, user in users.items()}
    listeners = [await open_socket(user) for user in others]
    everyone = [*sockets.values(), *listeners]
    for socket in everyone:
        await socket.drain(0.2)  # the connection updates of the sockets opened after it
    fingerprint = database_sync_to_async(table_fingerprint)
    before = await fingerprint(view.table_id)

    started = time.perf_counter()
    pings = 0
    while time.perf_counter() - started < 1.0:  # the peer: a round trip that does nothing
        await sockets["spectator"].send({"type": "ping", "echo": pings})
        await sockets["spectator"].communicator.receive_output(timeout=10)
        pings += 1
    report.ping_per_second = pings / (time.perf_counter() - started)

    rng = random.Random(seed)
    frames = probes(rng, view, count)
    started = time.perf_counter()
    for i, probe in enumerate(frames, 1):
        report.kinds[probe.kind] = report.kinds.get(probe.kind, 0) + 1
        problem = await _send_one(sockets[probe.sender], probe, report)
        report.sent += 1
        if problem:
            report.failures.append(f"{probe.short()} -> {problem}")
            if problem.startswith(("closed", "no answer")):
                sockets[probe.sender] = await open_socket(users[probe.sender])
            if len(report.failures) >= 50:
                report.failures.append("stopped after 50 failures")
                break
        if i % batch == 0 or i == len(frames):
            for socket in everyone:
                if not await socket.communicator.receive_nothing(timeout=0.05):
                    stray = await socket.communicator.receive_output(timeout=1)
                    report.failures.append(f"a socket heard something: {str(stray)[:300]}")
            after = await fingerprint(view.table_id)
            report.failures += [f"after frame {i}: {d}" for d in _differences(before, after)]
            before = after
    report.seconds = time.perf_counter() - started
    for socket in [*sockets.values(), *listeners]:
        await socket.close()
    return report


async def _send_one(socket, probe: Probe, report: FuzzReport) -> str | None:
    """Send one frame; None if it was refused with an error frame, else what went wrong."""
    communicator = socket.communicator
    # As the server hands it over (send_to would refuse an empty frame).
    message = {"text": probe.text} if probe.data is None else {"bytes": probe.data}
    await communicator.send_input({"type": "websocket.receive", **message})
    try:
        output = await communicator.receive_output(timeout=10)
    except TimeoutError:
        return "no answer in 10 s"
    if output["type"] == "websocket.close":
        return f"closed the socket with {output.get('code')}"
    frame = json.loads(output.get("text") or "{}")
    if frame.get("type") != "error":
        return f"not refused: {str(frame)[:300]}"
    code = frame.get("code")
    report.codes[code] = report.codes.get(code, 0) + 1
    if code == "server_error" or not frame.get("message"):
        return f"answered {frame}"
    return None
