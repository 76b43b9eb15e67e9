"""Frames per table change: the CPU to build them and the bytes each socket and the channel
layer carry (docs/benchmarks.md "Frames per change").

A six-seat pot-limit table plays hands through the services (calls and checks, a bet on the
flop), with one spectator counted; `poker.broadcast.frames_and_view` is timed (thread CPU)
around each change, and its output measured: the JSON bytes a socket receives per action
(every socket the public frame, the players concerned their private one), the bytes the
channel layer carries (a group message is stored once per member channel), and the CPU of
packing the messages and of each socket unpacking and forwarding its frames.

`--compare FILE` measures an older `poker/broadcast.py` (e.g. from `git show
<rev>:poker/broadcast.py`) whose one group message held every recipient's whole frame.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/room_bench_frames \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python -m bench.frames [--hands 20]

The database named by DATABASE_URL is dropped and created again.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import secrets
import statistics
import sys
import time
from urllib.parse import urlparse

import msgpack
import psycopg

SEATS = 6
SPECTATORS = 1


def recreate_database(url: str) -> None:
    parts = urlparse(url)
    name = parts.path.lstrip("/")
    if not name.startswith("room_bench"):
        sys.exit("DATABASE_URL must name a scratch database called room_bench...")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def django_on_scratch_database() -> None:
    """Django set up on the scratch database DATABASE_URL names, dropped, made again and
    migrated: every bench that plays through the services starts here."""
    recreate_database(os.environ["DATABASE_URL"])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(60))
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def six_seat_table():
    """A six-seat pot-limit table with a player in every seat, that deals only when asked
    (the in-process benches): (table, {seat: player})."""
    from poker.models import Table
    from tests.factories import default_rake_schedule_row, make_seated_player, make_table

    table = make_table(
        rake_schedule=default_rake_schedule_row(Table.Structure.POT_LIMIT),
        next_hand_delay_seconds=3600,
        max_seats=SEATS,
    )
    return table, {n: make_seated_player(table, f"b{n}", n) for n in range(1, SEATS + 1)}


def next_call_or_check(table, players) -> dict | None:
    """`table_act`'s arguments for the player to act's call (or check), or None when no hand
    ran and one was dealt instead (the in-process benches play hands this way)."""
    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand, Table

    hand = Hand.objects.filter(table=table, status="running").only("state", "turn").first()
    if hand is None:
        Table.objects.filter(pk=table.pk).update(next_hand_at=None)
        services.table_hand_start(table=table.pk)
        return None
    engine = EngineHand.from_dict(hand.state)
    return {
        "table": table.pk,
        "player": players[engine.to_act],
        "action": "call" if engine.legal_actions().call else "check",
        "amount": None,
        "turn": hand.turn,
        "seq": hand.turn,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--compare", help="an older poker/broadcast.py to measure instead")
    args = parser.parse_args(argv)
    django_on_scratch_database()

    from poker import broadcast
    from poker.models import Table
    from tests.factories import default_rake_schedule_row, make_seated_player, make_table

    module = broadcast
    if args.compare:
        spec = importlib.util.spec_from_file_location("broadcast_compared", args.compare)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        broadcast.send = module.send
    # The table services build their frames with `frames_and_view` (a compared module must
    # have it too); `frames_for_change` calls it.
    build = module.frames_and_view
    changes: list[dict] = []

    def timed(**kwargs):
        started = time.thread_time()
        frames, view = build(**kwargs)
        seconds = time.thread_time() - started
        changes.append({"seconds": seconds, "frames": frames})
        return frames, view

    broadcast.frames_and_view = timed

    table = make_table(
        rake_schedule=default_rake_schedule_row(Table.Structure.POT_LIMIT),
        next_hand_delay_seconds=3600,
        max_seats=SEATS,
    )
    players = {n: make_seated_player(table, f"b{n}", n) for n in range(1, SEATS + 1)}
    changes.clear()
    actions = _play(table, players, args.hands, changes)
    sockets = SEATS + SPECTATORS
    per_socket, layer_bytes, build_ms, forward_ms = [], [], [], []
    public_sizes: list[int] = []
    private_sizes: list[int] = []
    for change in actions:
        build_ms.append(change["seconds"] * 1000)
        started = time.thread_time()
        received, layer, public, private = _carry(change["frames"], sockets)
        forward_ms.append((time.thread_time() - started) * 1000)
        public_sizes.append(public)
        private_sizes.extend(private)
        per_socket.append(statistics.mean(received))
        layer_bytes.append(layer)
    build_ms.sort()
    print(
        f"{len(actions)} actions over {args.hands} hands, {SEATS} players + {SPECTATORS} "
        f"spectator ({'compared: ' + args.compare if args.compare else 'this tree'})"
    )
    p50, p95 = build_ms[len(build_ms) // 2], build_ms[int(len(build_ms) * 0.95)]
    print(
        f"build CPU per action: mean {statistics.mean(build_ms):.2f} ms, "
        f"p50 {p50:.2f} ms, p95 {p95:.2f} ms"
    )
    print(
        f"channel layer and sockets' CPU per action (pack once, each socket unpacks and "
        f"forwards): mean {statistics.mean(forward_ms):.2f} ms"
    )
    public_sizes.sort()
    print(
        f"public frame per action: p50 {public_sizes[len(public_sizes) // 2]:,} bytes; "
        f"a player's own frame: mean {statistics.mean(private_sizes):,.0f} bytes, "
        f"{len(private_sizes) / len(actions):.1f} per action"
    )
    print(
        f"bytes received per socket per action: mean {statistics.mean(per_socket):,.0f}; "
        f"carried by the channel layer per action: mean {statistics.mean(layer_bytes):,.0f}"
    )
    return 0


def _play(table, players: dict, hands: int, changes: list[dict]) -> list[dict]:
    """Play `hands` hands of calls and checks (a bet on each flop) and return the changes
    (frames and build time) that the players' actions made, blinds and deals left out."""
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand
    from poker.services import table_act
    from tests.factories import deal_hand

    actions: list[dict] = []
    for _ in range(hands):
        hand = deal_hand(table)
        while hand.status == Hand.Status.RUNNING:
            engine = EngineHand.from_dict(hand.state)
            legal = engine.legal_actions()
            action, amount = ("call", None) if legal.call else ("check", None)
            if engine.street_name == "flop" and legal.raise_kind == "bet":
                action, amount = "bet", legal.min_to
            before = len(changes)
            table_act(
                table=table,
                player=players[legal.seat],
                action=action,
                amount=amount,
                turn=hand.turn,
                seq=hand.turn,
            )
            actions.extend(changes[before:])
            hand.refresh_from_db()
    return actions


def _carry(frames: dict, sockets: int) -> tuple[list[int], int, int, list[int]]:
    """Carry one change's frames over the channel layer to `sockets` sockets: (bytes each
    socket receives, bytes the layer carries, public frame size, private frame sizes)."""
    if "private" in frames:  # public text once, private texts to their owners
        messages = [msgpack.packb({"type": "table.update", "text": frames["public"]})]
        messages += [
            msgpack.packb({"type": "table.private", "text": t}) for t in frames["private"].values()
        ]
        # Each socket decodes its messages and forwards their text as it is.
        for _ in range(sockets):
            msgpack.unpackb(messages[0])
        for message in messages[1:]:
            msgpack.unpackb(message)
        public = len(frames["public"].encode())
        private = [len(text.encode()) for text in frames["private"].values()]
        received = [public + p for p in private] + [public] * (sockets - len(private))
        layer = len(messages[0]) * sockets + sum(len(m) for m in messages[1:])
        return received, layer, public, private
    # The older shape: one message with every frame, each socket forwards its own.
    message = msgpack.packb({"type": "table.update", **frames})
    received = []
    for k in range(sockets):
        got = msgpack.unpackb(message)
        own = list(got["frames"].values())
        frame = own[k] if k < len(own) else got["public"]
        received.append(len(json.dumps(frame, separators=(",", ":"))))
    return received, len(message) * sockets, received[-1], received[:-1]


if __name__ == "__main__":
    sys.exit(main())
