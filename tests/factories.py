"""Shared builders for test data; tests call these instead of repeating model set-up."""

import asyncio
import base64
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.contrib.auth import get_user_model

from bench.mirror import TableMirror

DEFAULT_PASSWORD = "correct-horse-battery-staple-42"


def make_player(username: str = "alice", *, password: str = DEFAULT_PASSWORD, **fields):
    """A registered player (a plain Django user; the profile comes with it)."""
    fields.setdefault("email", f"{username}@example.test")
    email_verified = fields.pop("email_verified", True)  # a player who may deposit
    user = get_user_model().objects.create_user(username=username, password=password, **fields)
    if email_verified:
        from accounts.services import email_mark_verified

        email_mark_verified(user=user)
    return user


# The four games of the room as `make_table` overrides, for tests parametrized over them. Fixed
# limit $1/$2: the big blind is the small bet, the small blind half of it.
_LIMIT = {
    "structure": "limit",
    "small_blind": None,
    "big_blind": None,
    "small_bet": 100,
    "big_bet": 200,
}
GAMES = {
    "omaha-pot-limit": {"game": "omaha"},
    "omaha8-pot-limit": {"game": "omaha8"},
    "omaha-limit": {"game": "omaha", **_LIMIT},
    "omaha8-limit": {"game": "omaha8", **_LIMIT},
}

_table_count = 0


def make_table(**overrides):
    """A table (poker.models.Table): pot-limit Omaha $0.50/$1, 6 seats, unless overridden."""
    from poker.models import Table

    global _table_count
    _table_count += 1
    fields = {
        "name": f"Table {_table_count}",
        "game": Table.Game.OMAHA,
        "structure": Table.Structure.POT_LIMIT,
        "small_blind": 50,
        "big_blind": 100,
        "max_seats": 6,
        # No time bank unless a test asks for one: the other tests time turns to the second.
        "time_bank_seconds": 0,
    }
    fields.update(overrides)
    return Table.objects.create(**fields)


def default_rake_schedule_row(structure: str):
    """The room's default rake schedule for a structure (RULES.md 8), as a stored schedule that
    tables refer to: `make_table(rake_schedule=default_rake_schedule_row(structure))`."""
    from poker.engine.rake import default_rake_schedule
    from poker.models import RakeSchedule

    schedule, _ = RakeSchedule.objects.get_or_create(
        name=f"default {structure}",
        defaults={"schedule": default_rake_schedule(structure).to_data()},
    )
    return schedule


def table_stakes(table) -> dict:
    """What the cashier's table services take of a table: its id and its buy-in range."""
    return {"table_id": table.pk, "min_buy_in": table.min_buy_in, "max_buy_in": table.max_buy_in}


def make_funded_player(username: str = "alice", *, cents: int = 100_000, **fields):
    """A player whose wallet holds `cents` (deposited through the cashier, $1,000 by default)."""
    from cashier.services import wallet_deposit

    player = make_player(username, **fields)
    if cents:
        wallet_deposit(player=player, amount=cents, idempotency_key=f"test-fund-{username}")
    return player


def make_seated_player(table, username: str, seat: int, *, buy_in=None, post_big_blind=False):
    """A funded player sat at `table` in `seat` through the table service (max buy-in)."""
    from poker.services import table_sit

    player = make_funded_player(username)
    table_sit(
        table=table,
        player=player,
        seat_number=seat,
        buy_in=buy_in or table.max_buy_in,
        post_big_blind=post_big_blind,
        idempotency_key=f"test-sit-{username}-{table.pk}",
    )
    return player


def make_three_seated(table) -> dict:
    """ann, ben and cy seated at `table` in seats 1, 2 and 4: {seat: player}."""
    return {
        n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"), (4, "cy"))
    }


def session_headers_for(user) -> list[tuple[bytes, bytes]]:
    """Headers of a logged-in browser (session cookie, same origin), for socket tests."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    return [
        (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()),
        (b"origin", b"http://127.0.0.1"),
    ]


class TableSocket:
    """A player's (or anonymous) table socket over config.asgi, keeping every frame it got.

    `until(predicate)` reads frames until one matches; `act` sends an act with the next seq.
    """

    def __init__(self, communicator, user=None) -> None:
        self.communicator = communicator
        self.user = user
        self.frames: list[dict] = []
        self.seq = 0
        self.state: dict | None = None
        self.mirror = TableMirror()
        self.resync_asked: int | None = None  # the version a `resync` was sent from

    @classmethod
    async def open(cls, table_id: int, user=None, *, headers=None, since: int | None = None):
        from asgiref.sync import sync_to_async
        from channels.testing import WebsocketCommunicator

        from config.asgi import application

        if headers is None:
            headers = (
                await sync_to_async(session_headers_for)(user)
                if user is not None
                else [(b"origin", b"http://127.0.0.1")]
            )
        path = f"/ws/tables/{table_id}/" + ("" if since is None else f"?since={since}")
        communicator = WebsocketCommunicator(application, path, headers)
        socket = cls(communicator, user)
        socket.connected, socket.close_code = await communicator.connect(timeout=10)
        return socket

    async def receive(self, timeout: float = 10) -> dict:
        """The next frame; `frames` keeps them as sent, while the one returned for a snapshot
        or update carries the STATE the frames so far add up to (bench.mirror), as a page
        shows it. A stale or pending update carries the STATE shown still: a seated player's
        own `player_connection` update comes after the snapshot that already shows it."""
        frame = await self.communicator.receive_json_from(timeout=timeout)
        self.frames.append(frame)
        if self.mirror.apply(frame):
            self.state = self.mirror.state
        if frame["type"] in ("snapshot", "update", "resync") and self.state is not None:
            return {**frame, "state": self.state}
        return frame

    async def until(self, predicate, timeout: float = 10) -> dict:
        import asyncio

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"no matching frame; last: {self.frames[-3:]}")
            if (
                self.mirror.pending
                and self.resync_asked != self.mirror.version
                and await self.communicator.receive_nothing(
                    timeout=min(left, self.mirror.gap_wait_seconds)
                )
            ):
                # The version before a pending update did not come (crossed or lost): ask for
                # what this socket missed, as a page does after the same wait.
                self.resync_asked = self.mirror.version
                await self.send(self.mirror.resync_frame())
                continue
            frame = await self.receive(timeout=left)
            if predicate(frame):
                return frame

    async def until_state(self, predicate, timeout: float = 10) -> dict:
        """The latest STATE once `predicate(state)` holds (maybe the one already shown)."""
        if self.state is not None and predicate(self.state):
            return self.state
        frame = await self.until(lambda f: "state" in f and predicate(f["state"]), timeout)
        return frame["state"]

    async def send(self, frame: dict) -> None:
        await self.communicator.send_json_to(frame)

    async def act(self, action: str, amount=None, *, turn: int, seq: int | None = None) -> int:
        if seq is None:
            self.seq += 1
            seq = self.seq
        await self.send(
            {"type": "act", "action": action, "amount": amount, "turn": turn, "seq": seq}
        )
        return seq

    async def drain(self, quiet: float = 0.3) -> None:
        """Read until nothing arrives for `quiet` seconds."""
        while not await self.communicator.receive_nothing(timeout=quiet):
            await self.receive()

    async def close(self) -> None:
        """Close and wait for the consumer's goodbye to finish: the communicator's own wait
        (1 s) cancels it on a busy machine, and the seat then stays marked connected."""
        await self.communicator.disconnect(timeout=30)


def deal_hand(table, deck=None):
    """Deal the table's next hand now (as the start-next-hand task does once its delay is over),
    from `deck` (all 52 cards in dealing order, the button draw too) instead of a shuffle."""
    from unittest import mock

    from poker import services
    from poker.engine import dealer
    from poker.models import Table

    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    if deck is None:
        return services.table_hand_start(table=table)
    with mock.patch.object(dealer, "shuffle_deck", lambda randbelow: list(deck)):
        return services.table_hand_start(table=table)


def act_for_the_player_to_act(hand, players: dict, action: str, amount=None) -> None:
    """The player to act does `action` through the table service (players: seat -> player)."""
    from poker import services
    from poker.engine.hand import Hand as EngineHand

    hand.refresh_from_db()
    seat = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=hand.table,
        player=players[seat],
        action=action,
        amount=amount,
        turn=hand.turn,
        seq=hand.turn,
    )


def call_down(hand, players: dict, *, until_street: str | None = None):
    """Everyone to act calls or checks through the table service until the hand is over (or
    has reached `until_street`); `players` maps seat number -> player. Returns the hand."""
    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand

    for _ in range(100):
        hand.refresh_from_db()
        engine = EngineHand.from_dict(hand.state)
        if hand.status != Hand.Status.RUNNING or engine.street_name == until_street:
            return hand
        legal = engine.legal_actions()
        services.table_act(
            table=hand.table,
            player=players[legal.seat],
            action="call" if legal.call else "check",
            amount=None,
            turn=hand.turn,
            seq=hand.turn,
        )
    raise AssertionError("the hand did not end")


def channel_layer_addresses() -> list[str]:
    """The Redis servers of the channel layer (none for the in-memory layer)."""
    from django.conf import settings

    layer = settings.CHANNEL_LAYERS["default"]
    if not layer["BACKEND"].startswith(("channels_redis.", "config.channel_layer.")):
        return []
    hosts = layer.get("CONFIG", {}).get("hosts", [])
    return [host["address"] if isinstance(host, dict) else host for host in hosts]


def channel_layer_flush() -> None:
    """`FLUSHDB` on the channel layer's Redis (each of its servers), as a mistaken command or a
    restart without persistence would: every key (queued messages, kept frames) is gone."""
    import redis

    addresses = channel_layer_addresses()
    assert addresses, "a flush needs the Redis channel layer (REDIS_URL)"
    for address in addresses:
        client = redis.Redis.from_url(address)
        try:
            assert client.flushdb()
        finally:
            client.close()


def channel_layer_connections_drop() -> None:
    """The channel layer's Redis closes the subscribed connections of this test run's database,
    as a Redis restart does to every connection (the other test processes' databases keep
    theirs)."""
    import redis

    addresses = channel_layer_addresses()
    assert addresses, "needs the Redis channel layer (REDIS_URL)"
    for address in addresses:
        client = redis.Redis.from_url(address)
        try:
            database = client.connection_pool.connection_kwargs.get("db", 0)
            dropped = 0
            for entry in client.client_list(_type="pubsub"):
                if int(entry["db"]) == database:
                    dropped += client.client_kill_filter(_id=entry["id"])
            assert dropped, "no subscribed connection to drop"
        finally:
            client.close()


def make_showdown_table(**overrides):
    """An Omaha Showdown table (showdown.models.ShowdownTable) with RULES.md 9's recommended
    limits and default paytables (Bet, Hole Card Bonus A, Final Hand Bonus A, loaded by the
    app's data migration), no payout cap, unless overridden."""
    from showdown.models import ShowdownTable

    global _table_count
    _table_count += 1
    fields = {
        "name": f"Showdown {_table_count}",
        "bet_paytable": showdown_paytable("bet"),
        "hole_card_bonus_paytable": showdown_paytable("hcb-a"),
        "final_hand_bonus_paytable": showdown_paytable("fhb-a"),
    }
    fields.update(overrides)
    return ShowdownTable.objects.create(**fields)


def showdown_paytable(name: str):
    """One of RULES.md 9's paytables as stored (showdown.models.Paytable). The data migration
    loads them; a transactional test that ran before may have flushed them, so they are put
    back (with their edges) when missing."""
    from poker.engine.showdown_paytables import paytable
    from showdown.models import Paytable
    from showdown.services import paytable_measure

    stored = Paytable.objects.filter(name=name).first()
    if stored is None:
        table = paytable(name)
        stored = paytable_measure(
            paytable=Paytable(kind=table.kind, name=table.name, pays=dict(table.pays))
        )
    return stored


def showdown_deck(hole: str, board: str) -> list[str]:
    """A deck that deals one Showdown seat `hole` (4 cards) and then `board` (5 cards), e.g.
    showdown_deck("AsKs2c3d", "QsJsTs4h9c"); the other cards follow in a fixed order."""
    from poker.engine.cards import FULL_DECK, parse_cards

    named = [*parse_cards(hole), *parse_cards(board)]
    return named + [card for card in FULL_DECK if card not in named]


def make_admin_client(kind: str, app_label: str):
    """A test client signed in as a superuser (`kind` "superuser") or as staff allowed only to
    view `app_label`'s models ("viewer"): admin pages that must read the same to both."""
    from django.contrib.auth.models import Permission
    from django.test import Client

    if kind == "superuser":
        user = make_player("boss", is_staff=True, is_superuser=True)
    else:
        user = make_player("clerk", is_staff=True)
        user.user_permissions.set(
            Permission.objects.filter(
                content_type__app_label=app_label, codename__startswith="view_"
            )
        )
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def make_staff(username: str, *roles: str, **fields):
    """A staff member (`is_staff`) in the named role groups ("support", "table managers",
    "cashier managers", "compliance": staff/migrations/0002_roles.py, 0003, 0005;
    "integrity officers": integrity/migrations/0002), with a verified e-mail like players."""
    import importlib

    from django.apps import apps
    from django.contrib.auth.models import Group

    if Group.objects.filter(name__in=roles).count() != len(roles):  # flushed by a test
        importlib.import_module("staff.migrations.0002_roles").create_roles(apps)
        importlib.import_module("staff.migrations.0003_waiting_tools").grant_waiting_tools(apps)
        importlib.import_module("staff.migrations.0004_table_bars").grant_bar_view(apps)
        importlib.import_module("poker.migrations.0017_table_chat").grant_chat_moderation(apps)
        importlib.import_module("responsible.migrations.0004_staff_view").grant_staff_view(apps)
        importlib.import_module("tournaments.migrations.0002_staff_roles").grant_tournament_rights(
            apps
        )
        importlib.import_module("staff.migrations.0005_compliance_role").grant_compliance(apps)
        importlib.import_module(
            "responsible.migrations.0006_session_limit_staff_view"
        ).grant_session_view(apps)
        importlib.import_module(
            "integrity.migrations.0002_integrity_officers"
        ).grant_integrity_officers(apps)
    user = make_player(username, is_staff=True, **fields)
    user.groups.set(Group.objects.filter(name__in=roles))
    if len(roles) != user.groups.count():
        raise ValueError(f"unknown role in {roles!r}")
    return user


# The smallest file the identity checks take: a PNG's signature and a few bytes.
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def document_file(content: bytes = PNG, name: str = "scan.png"):
    """An uploaded file as a view's form gives it to `verification.services.document_upload`."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type="image/png")


def make_compliance_officer(username: str = "compliance-officer"):
    """A staff member in the compliance role (made once per test)."""
    from django.contrib.auth import get_user_model

    found = get_user_model().objects.filter(username=username).first()
    return found or make_staff(username, "compliance")


def make_verified(player, *, reviewer=None):
    """The player's identity checked through the services: a date of birth of age, and an
    identity document and a proof of address sent and approved by compliance staff."""
    import datetime

    from verification.services import document_approve, document_upload, identity_birth_date_set

    reviewer = reviewer or make_compliance_officer()
    identity_birth_date_set(player=player, date_of_birth=datetime.date(1990, 5, 17))
    for kind in ("identity", "address"):
        document = document_upload(player=player, kind=kind, file=document_file())
        document_approve(document=document, approved_by=reviewer, reason="matches the account")
    return player


class WireSocket:
    """A socket to a real server process (daphne, the embedded room) on 127.0.0.1, speaking
    RFC 6455 over an asyncio stream (text frames only). `state` is what the page would show;
    each kind of socket applies its frames to it (`_apply`)."""

    def __init__(self, reader, writer) -> None:
        self.reader, self.writer = reader, writer
        self.seq = 0
        self.frames: list[dict] = []

    @property
    def state(self) -> dict | None:
        raise NotImplementedError

    def _apply(self, frame: dict) -> None:
        raise NotImplementedError

    @classmethod
    async def open_path(cls, port: int, path: str, cookie: str):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(reader, writer)

    async def send(self, frame: dict) -> None:
        payload = json.dumps(frame).encode()
        await self._send_raw(0x1, payload)

    async def _send_raw(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        size = len(payload)
        length = bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + size.to_bytes(2)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        self.writer.write(bytes([0x80 | opcode]) + length + mask + masked)
        await self.writer.drain()

    async def receive(self) -> dict:
        message = b""
        while True:
            first, second = await self.reader.readexactly(2)
            size = second & 0x7F
            if size >= 126:
                size = int.from_bytes(await self.reader.readexactly(2 if size == 126 else 8))
            payload = await self.reader.readexactly(size)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError(f"closed: {int.from_bytes(payload[:2]) if payload else ''}")
            if opcode == 0x9:
                await self._send_raw(0xA, payload)
                continue
            message += payload
            if first & 0x80 and opcode in (0x0, 0x1):
                frame = json.loads(message)
                self.frames.append(frame)
                self._apply(frame)
                return frame

    async def until(self, predicate, timeout: float = 20) -> dict:
        """The state once `predicate` holds of it; an error frame fails the test."""
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.receive()
                assert frame["type"] != "error", frame
                if self.state is not None and predicate(self.state):
                    return self.state

    async def close(self) -> None:
        self.writer.close()


class WireTableSocket(WireSocket):
    """A poker table's socket, its frames applied as a page applies them (bench.mirror)."""

    def __init__(self, reader, writer) -> None:
        super().__init__(reader, writer)
        self.mirror = TableMirror()

    @property
    def state(self) -> dict | None:
        return self.mirror.state

    def _apply(self, frame: dict) -> None:
        self.mirror.apply(frame)

    @classmethod
    async def open(cls, port: int, table_id: int, cookie: str) -> "WireTableSocket":
        return await cls.open_path(port, f"/ws/tables/{table_id}/", cookie)


class WireShowdownSocket(WireSocket):
    """A live Showdown table's socket: its view is the latest public state with the player's
    own part of the same version laid over it, as the page draws it (docs/protocol.md)."""

    def __init__(self, reader, writer) -> None:
        super().__init__(reader, writer)
        self._view: dict | None = None
        self._own: dict | None = None

    @property
    def state(self) -> dict | None:
        return self._view

    def _apply(self, frame: dict) -> None:
        from showdown.live_selectors import view_merge

        if frame["type"] == "snapshot":
            self._view = frame["state"]
        elif frame["type"] == "private":
            self._own = frame
        elif frame["type"] == "state":
            # The latest own part: one of this version when the change was the player's, an
            # earlier one (the seat, the wallet) when it was someone else's.
            self._view = view_merge(frame["state"], self._own)
        elif frame["type"] == "resync":
            for missed in frame.get("frames", []):
                self._apply(missed)

    @classmethod
    async def open(cls, port: int, table_id: int, cookie: str) -> "WireShowdownSocket":
        return await cls.open_path(port, f"/ws/showdown/{table_id}/", cookie)


def embedded_room_env(data_dir: Path) -> dict:
    """A shell's environment as `make run` sees it: DEBUG, and none of the test run's settings
    (no DATABASE_URL and no REDIS_URL, so the room is embedded). The data folder is named only
    to keep it out of the working tree; it is what the default `var/postgres` would be."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    return {**env, "DEBUG": "true", "EMBEDDED_PGDATA": str(data_dir)}


def embedded_connect(data_dir: Path):
    """A psycopg connection to a running embedded room's database, found by the server's
    postmaster.pid (its socket folder and port)."""
    import psycopg

    lines = (data_dir / "postmaster.pid").read_text().splitlines()
    port, socket_dir = int(lines[3]), lines[4]
    return psycopg.connect(
        host=socket_dir, port=port, user="postgres", dbname="room", autocommit=True
    )


def run_together(*calls) -> list[str]:
    """Run each call in a thread of its own (its own database connection, real transactions),
    all let go at once; the exceptions they raised, as text (none: an empty list)."""
    import threading

    from django.db import connections

    barrier = threading.Barrier(len(calls))
    failures: list[str] = []

    def run(call) -> None:
        try:
            barrier.wait()
            call()
        except Exception as error:  # every failure is reported to the test
            failures.append(f"{getattr(call, '__name__', call)}: {error!r}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def deal_and_play_out(table, players: dict) -> None:
    """The table's changes as a live room makes them: the next hand is dealt (its players'
    rows written under the table's lock), then whoever is to act calls or checks until it is
    over. A turn another change took first (a leave folding the player) is refused, as a
    page's late click is, and read again. `players` maps seat number -> player."""
    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand

    hand = deal_hand(table)
    for _ in range(100):
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            return
        legal = EngineHand.from_dict(hand.state).legal_actions()
        try:
            services.table_act(
                table=hand.table,
                player=players[legal.seat],
                action="call" if legal.call else "check",
                amount=None,
                turn=hand.turn,
                seq=hand.turn,
            )
        except services.TableError:
            continue
    raise AssertionError("the hand did not end")


def sit_refusal(player, *, idempotency_key: str = "sit-refused"):
    """The TableError a new table's first seat refuses `player` with (a responsible-gaming
    check: a time-out, a loss limit, terms not accepted); fails the test if it seats them."""
    import pytest

    from poker import services as poker

    table = make_table()
    with pytest.raises(poker.TableError) as refused:
        poker.table_sit(
            table=table,
            player=player,
            seat_number=1,
            buy_in=table.max_buy_in,
            post_big_blind=False,
            idempotency_key=idempotency_key,
        )
    return refused.value


def admin_user_change(staff, user, *, groups: list, **flags: bool):
    """Post the admin's change form of `user` as `staff` would: what the form shows, with
    `groups` (Group objects) and the `flags` set (`is_staff=True`...); the answer."""
    from django.test import Client

    client = Client()
    client.force_login(staff, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get(f"/admin/auth/user/{user.pk}/change/")
    data = {
        key: value
        for key, value in page.context["adminform"].form.initial.items()
        if value is not None and key not in ("password", "groups", "user_permissions")
    }
    data.update(
        {
            "groups": [group.pk for group in groups],
            "is_active": "on",
            **{name: "on" for name, on in flags.items() if on},
            "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        }
    )
    data.pop("date_joined", None)
    data.pop("last_login", None)
    return client.post(f"/admin/auth/user/{user.pk}/change/", data)


def make_sit_and_go_template(name: str = "PLO 6-max", **overrides):
    """A Sit & Go template (tournaments.models.TournamentTemplate): pot-limit Omaha, 6 seats,
    $10 + $1, three short levels, paying 65/35 (100 below four entrants), unless overridden."""
    from tournaments.models import TournamentTemplate

    fields = {
        "name": name,
        "game": "omaha",
        "structure": "pot-limit",
        "seats": 6,
        "buy_in": 1_000,
        "fee": 100,
        "starting_chips": 1_500,
        "blind_levels": [
            {"small_blind": 10, "big_blind": 20, "ante": 0, "minutes": 5},
            {"small_blind": 15, "big_blind": 30, "ante": 0, "minutes": 5},
            {"small_blind": 25, "big_blind": 50, "ante": 5, "minutes": 5},
        ],
        "breaks": [],
        "payouts": [
            {"min_entrants": 2, "max_entrants": 3, "percents": [100]},
            {"min_entrants": 4, "max_entrants": 6, "percents": [65, 35]},
        ],
    }
    fields.update(overrides)
    if fields["seats"] == 2 and "payouts" not in overrides:
        fields["payouts"] = [{"min_entrants": 2, "max_entrants": 2, "percents": [100]}]
    template = TournamentTemplate(**fields)
    template.full_clean()
    template.save()
    return template


def make_sit_and_go(**template_overrides):
    """An open Sit & Go of a fresh template (`make_sit_and_go_template`'s defaults)."""
    from tournaments.services import tournament_open

    return tournament_open(template=make_sit_and_go_template(**template_overrides))


def make_started_sit_and_go(names, *, cents: int = 5_000, **template_overrides):
    """A Sit & Go of a fresh template with every seat registered by a funded player of
    `names` (one per seat), so it has started: (the Sit & Go, re-read, and its players)."""
    from tournaments.services import tournament_register

    sng = make_sit_and_go(seats=len(names), **template_overrides)
    players = [make_funded_player(name, cents=cents) for name in names]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    return sng, players


class LobbyEars:
    """The lobby group's messages as a lobby page's socket hears them, from synchronous tests:
    a thread of its own subscribes to the group on the real channel layer (its own event loop:
    channels-redis's pub/sub connections belong to the loop that made them) and keeps what
    arrives. `heard()` returns the `lobby.update` bodies since the last call, all of them:
    it sends a marker through the group and reads up to it (Redis delivers one group's
    messages in the order they were published).

    The listener never cancels a `receive`: channels-redis drops a message whose pop was in
    flight when the receive was cancelled (seen on a loaded CI run: the marker never came).
    It stops on a message of its own sent to its channel."""

    STOP = {"type": "test.stop"}

    def __init__(self) -> None:
        import queue
        import threading

        self._queue: queue.Queue = queue.Queue()
        self._ready = threading.Event()
        self._channel = ""
        self._markers = 0
        self._thread = threading.Thread(target=lambda: asyncio.run(self._listen()), daemon=True)

    async def _listen(self) -> None:
        from channels.layers import get_channel_layer

        from poker.broadcast import LOBBY_GROUP

        layer = get_channel_layer()
        self._channel = await layer.new_channel()
        await layer.group_add(LOBBY_GROUP, self._channel)
        self._ready.set()
        try:
            while (message := await layer.receive(self._channel)) != self.STOP:
                self._queue.put(message)
        finally:
            await layer.group_discard(LOBBY_GROUP, self._channel)

    def stop(self) -> None:
        from asgiref.sync import async_to_sync
        from channels.layers import get_channel_layer

        async_to_sync(get_channel_layer().send)(self._channel, self.STOP)
        self._thread.join(5)

    def heard(self) -> list[dict]:
        from asgiref.sync import async_to_sync
        from channels.layers import get_channel_layer

        from poker.broadcast import LOBBY_GROUP

        self._markers += 1
        marker = {"type": "test.marker", "marker": self._markers}
        async_to_sync(get_channel_layer().group_send)(LOBBY_GROUP, marker)
        updates = []
        while (message := self._queue.get(timeout=10)) != marker:
            if message["type"] == "lobby.update":
                updates.append(message["update"])
        return updates


@contextmanager
def lobby_listening() -> Iterator[LobbyEars]:
    """`with lobby_listening() as ears:` a `LobbyEars` subscribed for the block (it needs the
    Redis channel layer: `channel_layer_addresses()`)."""
    ears = LobbyEars()
    ears._thread.start()
    assert ears._ready.wait(5), "the lobby listener did not subscribe"
    try:
        yield ears
    finally:
        ears.stop()


def bust_seat_one(table, players: dict):
    """Heads-up, seat 1 (bought in for 5,000: `make_seated_player(..., buy_in=5000)`) loses
    everything to seat 2 at a showdown, both raising the most they may each street; the hand."""
    from poker.models import Table
    from tests.poker.engine.conftest import build_deck

    Table.objects.filter(pk=table.pk).update(button_seat=2, big_blind_seat=1)
    # The button moves to seat 1, so the cards go to seat 2 first, then seat 1.
    deck = build_deck(["AsAhKsKh", "2c3d7h8s"], "Ad Ac Kd 5s 9c")
    hand = play_hand_all_in(deal_hand(table, deck), players)
    assert {s["seat"]: s["final_stack"] for s in hand.result["seats"]}[1] == 0
    return hand


def play_hand_all_in(hand, by_seat: dict):
    """Play `hand` to its end, each player to act raising the most they may, else calling or
    checking; the finished hand."""
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand

    for _ in range(200):
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            return hand
        legal = EngineHand.from_dict(hand.state).legal_actions()
        if legal.raise_kind:
            act_for_the_player_to_act(hand, by_seat, legal.raise_kind, legal.max_to)
        else:
            act_for_the_player_to_act(hand, by_seat, "call" if legal.call else "check")
    raise AssertionError("the hand did not end")


def heads_up_asked_to_run_twice(**table_fields):
    """Two connected players at a run-it-twice table, both all-in preflop: (table, players,
    the hand, now asked)."""
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Seat

    table = make_table(run_it_twice=True, **table_fields)
    players = {
        n: make_seated_player(table, name, n, buy_in=5000) for n, name in ((1, "ann"), (2, "ben"))
    }
    Seat.objects.filter(table=table).update(connected=True)
    hand = deal_hand(table)
    for _ in range(10):
        hand.refresh_from_db()
        engine = EngineHand.from_dict(hand.state)
        if engine.deciding_runs:
            return table, players, hand
        legal = engine.legal_actions()
        if legal.raise_kind:
            act_for_the_player_to_act(hand, players, legal.raise_kind, legal.max_to)
        else:
            act_for_the_player_to_act(hand, players, "call")
    raise AssertionError("nobody went all-in")


def priority_lists(queue: str) -> list[str]:
    """kombu's Redis lists of a Celery queue, the one a worker pops first first: one per
    priority step (0, the highest and the default, is the queue's own name; the turns' timers
    wait in config.timeouts.ROUTINE's)."""
    return [queue] + [f"{queue}\x06\x16{step}" for step in (3, 6, 9)]
