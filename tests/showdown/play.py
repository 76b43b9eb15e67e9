"""What the Showdown tests share: known hands and boards, a live table's seats and wagers,
a live board played to its settlement, and a live socket that keeps what it hears."""

import json

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from cashier.models import house_shard
from config.asgi import application
from poker.engine.cards import FULL_DECK, parse_cards
from showdown import services
from showdown.live import (
    live_decide,
    live_seat_take,
    live_wagers_place,
)
from showdown.live_selectors import view_merge
from showdown.models import LiveRound, ShowdownRound
from tests.factories import make_funded_player, make_showdown_table, session_headers_for

# As Ks + Qs Js Ts: a royal flush (Bet 25 to 1, Final Hand Bonus 200 to 1); the four hole
# cards are no Hole Card Bonus hand.
ROYAL = ("AsKs2c3d", "QsJsTs4h9c")


# 2c 7d + 9h Jd Qc... the best is queen high: everything loses but a folded Ante.
NOTHING = ("2c7d4s8h", "9hJdQcKh3s")


START = 100_000


def live_deck(holes: list[str], board: str) -> list[str]:
    """A deck dealing `holes[i]` to the i-th seat with wagers (clockwise) and then `board`;
    the engine deals one card at a time round the seats."""
    hands = [parse_cards(hole) for hole in holes]
    named = [hand[k] for k in range(4) for hand in hands] + list(parse_cards(board))
    return named + [card for card in FULL_DECK if card not in named]


def seated(table, name: str, seat: int):
    player = make_funded_player(name, cents=START)
    live_seat_take(player=player, table_id=table.pk, seat=seat)
    return player


def wager(player, table, key: str, ante=500, hcb=0, fhb=0, now=None):
    return live_wagers_place(
        player=player,
        table_id=table.pk,
        ante=ante,
        hole_card_bonus=hcb,
        final_hand_bonus=fhb,
        idempotency_key=key,
        now=now,
    )


HOLES = {"ann": "AsKs2c3d", "bob": "2d7c4s8c"}


BOARD = "QsJsTs4h9c"


def cards(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(0, len(text), 2)]


class Socket:
    def __init__(self, communicator):
        self.communicator = communicator
        self.frames: list[dict] = []
        self.own: dict | None = None  # this player's latest own part (a `private` frame)

    @classmethod
    async def open(cls, table_id: int, user, path: str = ""):
        headers = await sync_to_async(session_headers_for)(user)
        communicator = WebsocketCommunicator(
            application, f"/ws/showdown/{table_id}/{path}", headers
        )
        connected, _ = await communicator.connect(timeout=10)
        assert connected
        return cls(communicator)

    @classmethod
    async def open_since(cls, table_id: int, user, since: int):
        """A page reconnecting: the version it shows in its address."""
        return await cls.open(table_id, user, f"?since={since}")

    async def send(self, frame: dict) -> None:
        await self.communicator.send_json_to(frame)

    async def until(self, predicate, timeout: float = 10) -> dict:
        while True:
            frame = await self.communicator.receive_json_from(timeout=timeout)
            self.frames.append(frame)
            if frame["type"] == "private":
                self.own = frame
            if predicate(frame):
                return frame

    def view(self, frame: dict) -> dict:
        """The player's view, as the page draws it: a `state` frame with the own part of its
        version laid over it (sent just before it); a snapshot is the view already."""
        if frame["type"] == "snapshot" or self.own is None:
            return frame["state"]
        assert self.own["version"] == frame["version"], (self.own, frame["version"])
        return view_merge(frame["state"], self.own)

    async def until_phase(self, phase: str) -> dict:
        frame = await self.until(
            lambda f: (
                (f.get("state") or {}).get("round") is not None
                and f["state"]["round"]["phase"] == phase
            )
        )
        return self.view(frame)

    def text(self) -> str:
        return json.dumps(self.frames)


def play_a_live_board(monkeypatch) -> list[ShowdownRound]:
    """A live board of three seats on three shards, settled in one entry: Ann wins (royal
    flush, raised), Bob folds and loses his Ante, Cat calls and loses everything (so no wallet
    leg of hers in the board's entry); the seats' rounds, in seat order."""
    table = make_showdown_table(seats=7, bet_seconds=15, action_seconds=20)
    ann, bob, cat = (seated(table, n, s) for n, s in (("ann", 1), ("bob", 3), ("cat", 6)))
    assert len({house_shard(p.pk) for p in (ann, bob, cat)}) == 3
    deck = live_deck(["AsKs2c3d", "2d7c4s8c", "2h3h5d6d"], "QsJsTs4h9c")
    monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))
    wager(ann, table, "a1", ante=500, fhb=100)
    wager(bob, table, "b1", ante=1_000)
    wager(cat, table, "c1", ante=500)
    for player, decision in ((ann, "raise"), (bob, "fold"), (cat, "call")):
        live_decide(player=player, table_id=table.pk, decision=decision, idempotency_key="d")
    assert LiveRound.objects.get().phase == LiveRound.Phase.SETTLED
    return list(ShowdownRound.objects.filter(live_round__isnull=False).order_by("live_seat"))
