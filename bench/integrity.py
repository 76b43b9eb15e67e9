"""Synthetic players for the integrity checks: honest bots with planted cheats among them.

    DATABASE_URL=... .venv/bin/python -m bench.integrity [--tables 4] [--hands 2400] [--seed 1]

Plays a population through the room's own services (`table_sit`, `table_hand_start`,
`table_act`, `table_leave`: the engine, the ledger and the hand log as a live room writes
them) on a simulated clock, then runs the checks (`integrity_run`) and prints where each
planted case ranks in its queue and how many honest subjects were flagged
(`INTEGRITY_FLAG_SCORE`). The figures go to docs/benchmarks.md ("Integrity checks").

The population:
- honest players: a random policy that weighs its own cards (folds weak hands to bets more
  often, raises strong ones), human decision times (log-normal around 2.5 s), sessions of a
  few rounds at a random table with breaks between;
- colluding pairs: they sit down together, leave together and share their cards: they fold
  to each other's bets, never raise each other, and when only the two are left after the flop
  the first bets and the second folds (soft play, and chips flow to the first); each pair logs
  in from one address with one browser;
- a chip dumper: follows a recipient (who stays long at a table) and, whenever both are in a
  hand, bets and calls weak holdings into it and folds to its bets, never winning off it;
- AML cases at no table: a structurer (four deposits just under the large-deposit threshold
  within a few hours), a pass-through (a deposit withdrawn four hours later without a hand)
  and a large depositor; honest players deposit a few buy-ins at a time and, through the
  services, withdraw their winnings at the end;
- a fixed-timing bot: every decision 1.2 s (within 10 ms), at several tables at once, never
  a break.

Time: `django.utils.timezone.now` is the simulated clock while the population plays, so the
hand log's times are the decisions' times (no real waiting); decks come from a seeded shuffle
(the dealer's own `shuffle_deck`, fed a seeded generator) so a run repeats.
"""

from __future__ import annotations

import argparse
import heapq
import math
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from unittest import mock

UA = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Firefox/133.0",
]
CATEGORY_STRENGTH = [0.1, 0.3, 0.5, 0.62, 0.75, 0.82, 0.92, 0.97, 0.99]


@dataclass
class Population:
    """What to play: tables, hands in all, the honest players and the planted cases."""

    tables: int = 2
    hands: int = 40
    honest: int = 8
    pairs: int = 1
    dumper: bool = True
    bot_tables: int = 2
    aml: bool = True  # a structurer, a pass-through and a large depositor (they play no hand)
    round_hands: int = 8  # a table's hands between its players coming and going
    seed: int = 1
    prefix: str = "sim"
    start: datetime | None = None
    through: str = "services"  # or "engine": the hand log written directly (tests/integrity)


@dataclass
class Planted:
    """The ids the ranking should put on top, and the honest players (the rest)."""

    pairs: list[tuple[int, int]] = field(default_factory=list)
    dumper: tuple[int, int] | None = None  # (dumper, recipient)
    bot: int | None = None
    aml: dict[str, int] = field(default_factory=dict)  # planted case -> player id
    honest: list[int] = field(default_factory=list)
    honest_withdrawals: int = 0  # honest players who withdrew their winnings
    hands: int = 0
    since: datetime | None = None
    until: datetime | None = None


class Clock:
    def __init__(self, start: datetime) -> None:
        self.at = start

    def now(self) -> datetime:
        return self.at


@contextmanager
def simulated(clock: Clock, rng: random.Random) -> Iterator[None]:
    """The room's clock is `clock`, and the dealer shuffles with `rng`."""
    from django.utils import timezone

    from poker.engine import dealer

    shuffle = dealer.shuffle_deck
    with (
        mock.patch.object(timezone, "now", clock.now),
        mock.patch.object(dealer, "shuffle_deck", lambda _randbelow: shuffle(rng.randrange)),
    ):
        yield


# -- the players


class Bot:
    kind = "honest"

    def __init__(self, user, rng: random.Random) -> None:
        self.user, self.rng = user, rng
        self.partner: Bot | None = None
        self.seated: set[int] = set()  # table ids
        self.idle_until = 0  # the round number before which it stays away

    @property
    def pk(self) -> int:
        return self.user.pk

    def think(self) -> float:
        return min(20.0, max(0.4, self.rng.lognormvariate(math.log(2.5), 0.6)))

    def decide(self, view: View) -> tuple[str, int | None]:
        return honest_decision(self.rng, view)


class Colluder(Bot):
    kind = "colluder"
    leads = False  # the first of the pair bets when the two are alone; the second folds

    def decide(self, view: View) -> tuple[str, int | None]:
        partner = self.partner.pk if self.partner else None
        if partner in view.left:
            if len(view.left) == 2 and view.board:
                if self.leads and view.legal.max_to and not view.legal.call:
                    return view.bet(view.legal.max_to)
                return ("fold", None) if view.legal.call else ("check", None)
            if view.aggressor == partner:  # the partner bets: fold unless very strong
                if view.strength() < 0.9:
                    return "fold", None
                return view.call_or_check()
            action, amount = honest_decision(self.rng, view)
            if action in ("bet", "raise") and view.aggressor == partner:
                return view.call_or_check()
            return action, amount
        return honest_decision(self.rng, view)


class Dumper(Bot):
    """Loses chips to the recipient and never wins off it: it sees every flop the recipient
    sees (betting a weak start); after the flop, with one pair or worse it bets into the
    recipient and calls its bets, with anything better it folds to them (it must not win the
    pot it means to lose); on the river it folds to the recipient's bet whatever it holds.
    Facing somebody else's bet it gives up; against everybody else it plays honestly."""

    kind = "dumper"

    def decide(self, view: View) -> tuple[str, int | None]:
        taker = self.partner.pk if self.partner else None
        if taker not in view.left:
            return honest_decision(self.rng, view)
        give_up = ("fold", None) if view.legal.call else ("check", None)
        if view.legal.call and view.aggressor not in (None, taker):
            return give_up
        if view.street == "river" or (view.board and not view.weak()):
            return give_up
        if view.weak() and view.legal.max_to and not view.legal.call:  # bets, never re-raises
            return view.bet(view.legal.min_to)
        return view.call_or_check()


class Recipient(Bot):
    """Honest but for the dumper: with it in the hand it never folds, and after the flop it
    bets (or raises) the least it may whenever it is not the last to have bet, so the dumper
    always has a bet to fold to on the river."""

    kind = "recipient"

    def decide(self, view: View) -> tuple[str, int | None]:
        giver = self.partner.pk if self.partner else None
        if giver not in view.left:
            return honest_decision(self.rng, view)
        if view.street != "preflop" and view.legal.max_to and view.aggressor != self.pk:
            return view.bet(view.legal.min_to)
        return view.call_or_check()


class FixedBot(Bot):
    kind = "bot"

    def think(self) -> float:
        return 1.2 + self.rng.uniform(-0.01, 0.01)


class View:
    """What the player to act knows: their own cards, the board, the public actions."""

    def __init__(self, engine, seat: int, players: dict[int, int]) -> None:
        self.engine, self.seat = engine, seat
        self.legal = engine.legal_actions()
        index = engine.seats.index(seat)
        self.hole = list(engine.hole_cards[index])
        self.board = list(engine.board)
        self.street = engine.street_name
        self.left = {
            players[s] for i, s in enumerate(engine.seats) if not engine.folded[i] and s != seat
        }
        self.aggressor = None
        for event in reversed(engine.events):
            if event["type"] in ("street_dealt", "hole_cards_dealt"):
                break
            if event["type"] == "action" and event["action"] in ("bet", "raise"):
                self.aggressor = players.get(event["seat"])
                break

    def strength(self) -> float:
        from poker.engine.evaluate import HIGH_CATEGORIES, omaha_high

        if len(self.board) >= 3:
            category = omaha_high(self.hole, self.board).category
            return CATEGORY_STRENGTH[HIGH_CATEGORIES.index(category)]
        ranks = [card[0] for card in self.hole]
        suits = [card[1] for card in self.hole]
        score = 0.25 + 0.2 * ("A" in ranks) + 0.15 * (len(set(ranks)) < 4)
        return score + 0.1 * (len(set(suits)) <= 2) + 0.1 * sum(r in "KQJT" for r in ranks) / 4

    def weak(self) -> bool:
        """The holding the checks call weak (integrity.selectors.weak_holding)."""
        from integrity.selectors import weak_holding

        return weak_holding(self.hole, self.board)

    def call_or_check(self) -> tuple[str, int | None]:
        return ("call", None) if self.legal.call else ("check", None)

    def bet(self, to: int) -> tuple[str, int | None]:
        if not self.legal.max_to:
            return self.call_or_check()
        return self.legal.raise_kind or "raise", max(self.legal.min_to, min(to, self.legal.max_to))


def honest_decision(rng: random.Random, view: View) -> tuple[str, int | None]:
    """A player who weighs their own cards, with noise."""
    s = view.strength()
    legal = view.legal
    roll = rng.random()
    if legal.call:
        if roll < max(0.05, 0.75 - s):
            return "fold", None
        if legal.max_to and rng.random() < max(0.03, s - 0.55):
            return view.bet(rng.randint(legal.min_to, legal.max_to))
        return "call", None
    if legal.max_to and roll < 0.12 + max(0.0, s - 0.45):
        return view.bet(rng.choice([legal.min_to, rng.randint(legal.min_to, legal.max_to)]))
    return "check", None


# -- the room


@dataclass
class TableRun:
    table: object
    hands: int = 0
    seats: dict[int, Bot] = field(default_factory=dict)  # seat number -> bot
    hand: object = None  # the running hand's row (services) or engine (engine)
    engine: object = None  # the running hand as the player to act reads it
    hands_written: int = 0


def _make_players(pop: Population, rng: random.Random) -> tuple[list[Bot], Planted]:
    from django.contrib.auth import get_user_model

    from accounts.services import email_mark_verified
    from audit.services import audit_record
    from cashier.services import wallet_deposit
    from responsible.rules import terms_pending
    from responsible.services import terms_accept

    planted = Planted()
    bots: list[Bot] = []

    def player(name: str, cls: type[Bot], ip: str, agent: str) -> Bot:
        username = f"{pop.prefix}-{name}"
        # No password (none to hash: bots never log in through the page).
        user = get_user_model().objects.create_user(username, f"{username}@example.test")
        email_mark_verified(user=user)
        # A few buy-ins, under every AML threshold (more when the wallet runs low: `refill`).
        wallet_deposit(player=user, amount=10_000 * rng.randint(4, 9),
                       idempotency_key=f"{pop.prefix}-{name}")  # fmt: skip
        pending = terms_pending(player=user)
        if pending:  # a room with published terms: accepted, as at sign-up
            terms_accept(player=user, versions=[version.pk for version in pending])
        # A login as the room's signal records it: the address and the browser.
        audit_record(action="security.login", actor=user, subject=user,
                     payload={"ip": ip, "route": "lobby:login", "user_agent": agent})  # fmt: skip
        bot = cls(user, random.Random(rng.random()))
        bots.append(bot)
        return bot

    for k in range(pop.honest):
        bot = player(f"h{k}", Bot, f"198.51.100.{k + 1}", UA[k % len(UA)])
        planted.honest.append(bot.pk)
    for k in range(pop.pairs):
        ip = f"203.0.113.{k + 1}"
        a, b = player(f"c{k}a", Colluder, ip, UA[0]), player(f"c{k}b", Colluder, ip, UA[0])
        a.partner, b.partner, a.leads = b, a, True  # type: ignore[attr-defined]
        planted.pairs.append((min(a.pk, b.pk), max(a.pk, b.pk)))
    if pop.dumper:
        d = player("dumper", Dumper, "192.0.2.10", UA[1])
        r = player("taker", Recipient, "192.0.2.20", UA[2])
        d.partner, r.partner = r, d
        planted.dumper = (d.pk, r.pk)
    if pop.bot_tables:
        planted.bot = player("fixed", FixedBot, "192.0.2.30", UA[0]).pk
    if pop.aml:
        for k, name in enumerate(("structurer", "pass_through", "large_deposit")):
            bot = player(name, Bot, f"192.0.2.{40 + k}", UA[k % len(UA)])
            bots.remove(bot)  # at no table
            planted.aml[name] = bot.pk
    return bots, planted


class ServiceTables:
    """Play through the room's services: seats, buy-ins, deals, actions, cash-outs and the
    ledger as a live room writes them (a few hundred queries a hand)."""

    def __init__(self, room: Room) -> None:
        self.room = room

    def sit(self, run: TableRun, seat: int, bot: Bot) -> None:
        from poker.services import table_seat_options_set, table_sit

        table = run.table
        table_sit(table=table, player=bot.user, seat_number=seat, buy_in=table.max_buy_in,
                  post_big_blind=True, idempotency_key=self.room.key())  # fmt: skip
        table_seat_options_set(table=table, player=bot.user, auto_top_up=True)  # never bust

    def leave(self, run: TableRun, bot: Bot) -> None:
        from poker.services import table_leave

        table_leave(table=run.table, player=bot.user)

    def deal(self, run: TableRun):
        """The dealt hand's engine, or None when the table cannot deal."""
        from poker.engine.hand import Hand as EngineHand
        from poker.models import Hand, Table
        from poker.services import table_hand_start

        Table.objects.filter(pk=run.table.pk).update(next_hand_at=None)
        run.hand = table_hand_start(table=run.table)
        if run.hand is None or run.hand.status != Hand.Status.RUNNING:
            run.hand = None
            return None
        return EngineHand.from_dict(run.hand.state)

    def act(self, run: TableRun, bot: Bot, action: str, amount: int | None):
        """The hand's engine after the action, or None once the hand is over."""
        from poker.engine.hand import Hand as EngineHand
        from poker.models import Hand
        from poker.services import table_act

        hand = run.hand
        table_act(table=run.table, player=bot.user, action=action, amount=amount,
                  turn=hand.turn, seq=hand.turn)  # fmt: skip
        hand.refresh_from_db(fields=["status", "state", "turn"])
        if hand.status != Hand.Status.RUNNING:
            run.hand = None
            return None
        return EngineHand.from_dict(hand.state)


class EngineTables:
    """Play with the engine alone and write each finished hand as the room stores it (its
    row, its players with their nets, its event log with each event's time), in three
    inserts: fast enough for a test. No ledger, no seats: stacks are kept here (topped up to
    the most a buy-in allows after each hand, as auto top-up does)."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.stacks: dict[tuple[int, int], int] = {}
        self.started: dict[int, datetime] = {}
        self.timed: dict[int, list] = {}
        self.buttons: dict[int, int] = {}

    def sit(self, run: TableRun, seat: int, bot: Bot) -> None:
        self.stacks[(run.table.pk, seat)] = run.table.max_buy_in

    def leave(self, run: TableRun, bot: Bot) -> None:
        pass

    def deal(self, run: TableRun):
        from poker.engine import dealer
        from poker.engine.hand import Hand as EngineHand

        seats = sorted(run.seats)
        if len(seats) < 2:
            return None
        table = run.table
        last = self.buttons.get(table.pk, 0)
        button = next((s for s in seats if s > last), seats[0])
        self.buttons[table.pk] = button
        order = seats[seats.index(button) + 1 :] + seats[: seats.index(button) + 1]
        small, big = (button, order[0]) if len(seats) == 2 else (order[0], order[1])
        engine = EngineHand.start(
            game=table.game, structure=table.structure,
            seats={s: self.stacks[(table.pk, s)] for s in seats}, button=button,
            small_blind_seat=small, big_blind_seat=big,
            deck=dealer.shuffle_deck(self.room.rng.randrange),
            small_blind=table.small_blind, big_blind=table.big_blind,
        )  # fmt: skip
        now = self.room.clock.at
        self.started[table.pk] = now
        self.timed[table.pk] = [(event, now) for event in engine.events]
        run.hand = engine
        return engine if engine.result is None else self._finish(run, engine)

    def act(self, run: TableRun, bot: Bot, action: str, amount: int | None):
        engine = run.hand
        seat = engine.to_act
        events = engine.act(seat, action, amount)
        self.timed[run.table.pk] += [(event, self.room.clock.at) for event in events]
        return engine if engine.result is None else self._finish(run, engine)

    def _finish(self, run: TableRun, engine) -> None:
        from poker.models import Hand, HandEvent, HandPlayer

        table = run.table
        run.hands_written = getattr(run, "hands_written", 0) + 1
        now = self.room.clock.at
        started = self.started[table.pk]
        with _times(Hand, "started_at"):
            row = Hand.objects.create(
                table=table, number=run.hands_written, status=Hand.Status.FINISHED,
                deck=list(engine.deck or []),
                setup=engine.setup_without_deck, state=engine.snapshot(), turn=1,
                result=engine.result, started_at=started, ended_at=now,
                pot_total=sum(p["amount"] for p in engine.result["pots"]),
                players_dealt=len(engine.seats),
            )  # fmt: skip
        nets = {entry["seat"]: entry["net"] for entry in engine.result["seats"]}
        HandPlayer.objects.bulk_create(
            HandPlayer(hand=row, seat=seat, player=run.seats[seat].user, net=nets[seat])
            for seat in engine.seats
        )
        with _times(HandEvent, "created_at"):
            HandEvent.objects.bulk_create(
                HandEvent(hand=row, seq=seq, kind=event["type"], payload=event, created_at=at)
                for seq, (event, at) in enumerate(self.timed[table.pk])
            )
        for entry in engine.result["seats"]:
            self.stacks[(table.pk, entry["seat"])] = max(entry["final_stack"], table.max_buy_in)
        run.hand = None
        return None


@contextmanager
def _times(model, name: str) -> Iterator[None]:
    """Insert rows with the times given, not the clock's (`auto_now_add` would stamp them all
    with the moment of the insert)."""
    column = model._meta.get_field(name)
    with mock.patch.object(column, "pre_save", lambda obj, add: getattr(obj, name)):
        yield


class Room:
    """The tables, the bots and the simulated clock: each table's next moment on a heap."""

    def __init__(self, pop: Population) -> None:
        from tests.factories import make_table

        self.pop = pop
        self.rng = random.Random(pop.seed)
        start = pop.start or datetime.now(UTC).replace(microsecond=0) - timedelta(days=3)
        self.clock = Clock(start)
        self.keys = 0
        self.tables = EngineTables(self) if pop.through == "engine" else ServiceTables(self)
        with simulated(self.clock, self.rng):
            self.bots, self.planted = _make_players(pop, self.rng)
            self.runs = [
                TableRun(make_table(name=f"{pop.prefix} {k + 1}", next_hand_delay_seconds=3.0))
                for k in range(pop.tables)
            ]
        self.rounds = 0
        self.planted.since = start

    def key(self) -> str:
        self.keys += 1
        return f"{self.pop.prefix}-sit-{self.keys}"

    def idle(self) -> list[Bot]:
        return [b for b in self.bots if not b.seated and b.kind != "bot"]

    def sit(self, run: TableRun, bot: Bot) -> bool:
        free = [n for n in range(1, run.table.max_seats + 1) if n not in run.seats]
        if not free:
            return False
        self.tables.sit(run, free[0], bot)
        run.seats[free[0]] = bot
        bot.seated.add(run.table.pk)
        return True

    def leave(self, run: TableRun, bot: Bot) -> None:
        self.tables.leave(run, bot)
        run.seats = {n: b for n, b in run.seats.items() if b is not bot}
        bot.seated.discard(run.table.pk)

    def reseat(self, run: TableRun) -> None:
        """Between two hands of a table: some leave (pairs and a dumper with their partner),
        the idle come to free seats (a pair to two, a dumper where its recipient sits)."""
        self.rounds += 1
        self._leaving(run)
        self._coming(run)
        if self.pop.through != "engine":
            for bot in run.seats.values():
                self.refill(bot)

    def refill(self, bot: Bot) -> None:
        """A player short of two buy-ins deposits a few more (as players do: small deposits,
        under every AML threshold), so auto top-up never runs dry."""
        from cashier.models import Account
        from cashier.services import wallet_deposit

        table = self.runs[0].table
        wallet = Account.objects.filter(kind=Account.Kind.WALLET, owner=bot.user).first()
        if wallet is None or wallet.balance < 2 * table.max_buy_in:
            wallet_deposit(player=bot.user, amount=10_000 * self.rng.randint(3, 6),
                           idempotency_key=self.key())  # fmt: skip

    def _leaving(self, run: TableRun) -> None:
        for bot in list(run.seats.values()):
            if bot.kind == "bot" or bot not in run.seats.values():
                continue
            # The recipient stays long (the dumper's chips come to it where it sits).
            odds = 0.1 if bot.kind == "recipient" else 0.35
            leaving = run.hands > 0 and self.rng.random() < odds
            if bot.kind == "dumper":
                leaving = bot.partner not in run.seats.values()
            if not leaving:
                continue
            self.leave(run, bot)
            bot.idle_until = self.rounds + self.rng.randint(2, 6)
            partner = bot.partner
            if bot.kind == "colluder" and partner in run.seats.values():
                self.leave(run, partner)
                partner.idle_until = bot.idle_until

    def _coming(self, run: TableRun) -> None:
        for bot in self.idle():
            free = run.table.max_seats - len(run.seats)
            if bot.idle_until > self.rounds or free < 1 or bot.seated:
                continue
            partner = bot.partner
            if bot.kind == "colluder":
                if free >= 2 and not partner.seated and self.rng.random() < 0.7:
                    self.sit(run, bot)
                    self.sit(run, partner)
            elif bot.kind == "dumper":
                if partner in run.seats.values():
                    self.sit(run, bot)
            elif bot.kind == "recipient" and free >= 2 and not partner.seated:
                self.sit(run, bot)
                self.sit(run, partner)  # the dumper follows
            elif bot.kind != "recipient" and self.rng.random() < 0.5:
                self.sit(run, bot)

    def play(self) -> Planted:
        pop = self.pop
        with simulated(self.clock, self.rng):
            for run in self.runs[: pop.bot_tables]:
                for bot in self.bots:
                    if bot.kind == "bot":
                        self.sit(run, bot)
            heap = [(self.clock.at + timedelta(seconds=k), k) for k in range(len(self.runs))]
            heapq.heapify(heap)
            played = 0
            while played < pop.hands and heap:
                when, k = heapq.heappop(heap)
                self.clock.at = max(self.clock.at, when)
                run = self.runs[k]
                if run.engine is None:
                    if run.hands % pop.round_hands == 0:
                        self.reseat(run)
                    run.engine = self.tables.deal(run)
                    if run.engine is None:
                        run.hands += 1  # count the try, so the next one reseats
                        heapq.heappush(heap, (self.clock.at + timedelta(minutes=2), k))
                        continue
                else:
                    engine, seat = run.engine, run.engine.to_act
                    bot = run.seats[seat]
                    players = {n: b.pk for n, b in run.seats.items()}
                    action, amount = bot.decide(View(engine, seat, players))
                    run.engine = self.tables.act(run, bot, action, amount)
                    if run.engine is None:
                        played, run.hands = played + 1, run.hands + 1
                        gap = 3.5 + self.rng.expovariate(1 / 25)
                        heapq.heappush(heap, (self.clock.at + timedelta(seconds=gap), k))
                        continue
                think = run.seats[run.engine.to_act].think()
                heapq.heappush(heap, (self.clock.at + timedelta(seconds=think), k))
            self._money()
        self.planted.hands = played
        self.planted.until = self.clock.at + timedelta(seconds=1)
        return self.planted

    def _money(self) -> None:
        """After the hands, over seven simulated hours: the planted AML cases move their money
        (four deposits just under the large-deposit threshold within a few hours; a deposit
        withdrawn four hours later without a hand played; one deposit over the threshold), and
        (through the services) honest players who won withdraw their winnings."""
        from django.conf import settings
        from django.contrib.auth import get_user_model

        from cashier.models import Account
        from cashier.services import wallet_deposit, wallet_withdraw

        large = settings.INTEGRITY_AML_LARGE_CENTS
        users = get_user_model().objects.in_bulk([*self.planted.aml.values()])
        aml = {name: users[pid] for name, pid in self.planted.aml.items()}
        start = self.clock.at

        def at(hours: float) -> None:
            self.clock.at = start + timedelta(hours=hours)

        if aml:
            for k in range(4):
                at(0.5 + 1.5 * k)
                wallet_deposit(player=aml["structurer"], amount=large * 95 // 100 + 1_000 * k,
                               idempotency_key=self.key())  # fmt: skip
            at(0.25)
            wallet_deposit(player=aml["large_deposit"], amount=large * 3 // 2,
                           idempotency_key=self.key())  # fmt: skip
            at(1)
            wallet_deposit(player=aml["pass_through"], amount=large * 6 // 10,
                           idempotency_key=self.key())  # fmt: skip
            at(5)
            wallet_withdraw(player=aml["pass_through"], amount=large * 58 // 100,
                            idempotency_key=self.key())  # fmt: skip
        if self.pop.through != "engine":
            at(6)
            honest = {b.pk: b for b in self.bots if b.kind == "honest"}
            for wallet in Account.objects.filter(kind=Account.Kind.WALLET, owner__in=honest):
                deposited = self._deposited(wallet.owner_id)
                if wallet.balance - deposited >= 10_000:
                    self.planted.honest_withdrawals += 1
                    wallet_withdraw(player=honest[wallet.owner_id].user,
                                    amount=wallet.balance - deposited,
                                    idempotency_key=self.key())  # fmt: skip
        at(7)

    @staticmethod
    def _deposited(player_id: int) -> int:
        from django.db.models import Sum

        from cashier.models import Entry, Posting

        return (
            Posting.objects.filter(
                account__kind="wallet", account__owner_id=player_id,
                entry__reason=Entry.Reason.DEPOSIT,
            ).aggregate(total=Sum("amount"))["total"]
            or 0
        )  # fmt: skip


def population_play(pop: Population) -> Planted:
    """Play `pop` through the services; the planted ids and the period the hands cover."""
    return Room(pop).play()


# -- the figures


def ranks(run, planted: Planted) -> dict:
    """Where each planted case is in its queue, and the honest subjects flagged."""
    from django.conf import settings

    from integrity.models import Queue, QueueEntry

    entries = list(QueueEntry.objects.filter(run=run))
    collusion = {(e.player_id, e.partner_id): e for e in entries if e.queue == Queue.COLLUSION}
    bots = {e.player_id: e for e in entries if e.queue == Queue.BOTS}
    # Every planted player (the bot and the AML cases too): an honest pair has none of them.
    cheats = {p for pair in planted.pairs for p in pair} | set(planted.dumper or ())
    cheats |= {planted.bot, *planted.aml.values()} - {None}
    honest_pairs = [key for key in collusion if not (set(key) & cheats)]
    flag = settings.INTEGRITY_FLAG_SCORE
    out: dict = {
        "pairs": [collusion[p].rank if p in collusion else None for p in planted.pairs],
        "dumper": None,
        "bot": bots[planted.bot].rank if planted.bot in bots else None,
        "honest_players": len(planted.honest),
        "honest_players_flagged": sum(
            1 for pid in planted.honest if pid in bots and bots[pid].score >= flag
        ),
        "honest_pairs": len(planted.honest) * (len(planted.honest) - 1) // 2,
        "honest_pairs_flagged": sum(1 for key in honest_pairs if collusion[key].score >= flag),
    }
    if planted.dumper:
        d, r = planted.dumper
        key = (min(d, r), max(d, r))
        out["dumper"] = collusion[key].rank if key in collusion else None
        if key in collusion:
            signals = {s.kind: s for s in collusion[key].signals.all()}
            flow = signals.get("chip_flow")
            weak = signals.get("weak_losses")
            out["dumper_flow"] = flow and {**flow.detail, "score": flow.score}
            out["dumper_weak"] = weak and {**weak.detail, "score": weak.score}
    aml = {e.player_id: e for e in entries if e.queue == Queue.AML}
    out["aml"] = {name: aml[pid].rank if pid in aml else None for name, pid in planted.aml.items()}
    out["aml_kinds"] = {
        name: sorted(s.kind for s in aml[pid].signals.all()) if pid in aml else []
        for name, pid in planted.aml.items()
    }
    out["aml_entries"] = len(aml)
    out["honest_withdrawals"] = planted.honest_withdrawals
    out["honest_aml_flagged"] = sum(
        1 for pid in planted.honest if pid in aml and aml[pid].score >= flag
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--hands", type=int, default=2400)
    parser.add_argument("--honest", type=int, default=30)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--bot-tables", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from integrity.services import integrity_run

    pop = Population(tables=args.tables, hands=args.hands, honest=args.honest,
                     pairs=args.pairs, bot_tables=args.bot_tables, seed=args.seed,
                     prefix=f"sim{args.seed}-{int(time.time())}")  # fmt: skip
    began = time.perf_counter()
    planted = population_play(pop)
    played = time.perf_counter() - began
    began = time.perf_counter()
    run = integrity_run(since=planted.since, until=planted.until)
    checked = time.perf_counter() - began
    hours = (planted.until - planted.since).total_seconds() / 3600
    print(f"{planted.hands} hands on {pop.tables} tables over {hours:.1f} simulated hours, "
          f"played in {played:.0f} s; checks {checked:.1f} s ({run.entries} entries)")  # fmt: skip
    for key, value in ranks(run, planted).items():
        print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
