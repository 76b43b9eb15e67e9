"""Engine benchmarks: each measurement runs ours and a named peer in the same run, same input.

Run with ``.venv/bin/python -m bench.engine`` (``--quick`` for a short run). Every line shows
ours, the peer and the ratio ours/peer; for rates higher is better, for time and memory lower
is. Record the figures in docs/benchmarks.md.

Add a section as a ``measure_*`` function returning Measurements and list it in SECTIONS.
"""

import argparse
import pickle
import random
import subprocess
import sys
import time
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass

from phevaluator import evaluate_omaha_cards
from pokerkit import (
    Automation,
    Card,
    Mode,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    PotLimitOmahaHoldem,
)

from poker.engine.cards import FULL_DECK
from poker.engine.evaluate import omaha_high, omaha_high_low8, omaha_low8
from poker.engine.hand import Hand
from poker.engine.simulate import play_randomly, random_decision

SEED = 20260101

Deal = tuple[list[str], list[str]]


@dataclass(frozen=True)
class Measurement:
    name: str
    ours: float
    peer_name: str
    peer: float
    unit: str
    higher_is_better: bool = True

    def line(self) -> str:
        better = "higher is better" if self.higher_is_better else "lower is better"
        return (
            f"{self.name:<34} ours {self.ours:>12,.1f} {self.unit:<8} "
            f"{self.peer_name} {self.peer:>12,.1f} {self.unit:<8} "
            f"ratio {self.ours / self.peer:5.2f}x ({better})"
        )


@dataclass(frozen=True)
class Settings:
    deals: int
    slow_peer_deals: int  # pokerkit needs about a millisecond per hand
    repeats: int


FULL = Settings(deals=200_000, slow_peer_deals=3_000, repeats=5)
QUICK = Settings(deals=20_000, slow_peer_deals=300, repeats=2)


def make_deals(count: int, seed: int = SEED) -> list[Deal]:
    """Random river deals, hole 4 + board 5, as lists of card strings (what callers pass)."""
    rng = random.Random(seed)
    deals = []
    for _ in range(count):
        cards = rng.sample(FULL_DECK, 9)
        deals.append((cards[:4], cards[4:]))
    return deals


def per_second(run: Callable[[], object], count: int, repeats: int) -> float:
    """Best of `repeats` runs, as operations per second (the least disturbed run)."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return count / best


def _our_runs(deals: list, few: list) -> dict[str, Callable[[], None]]:
    """Our evaluator's workloads: high, low and both halves over every deal, and a shown
    hand's cards and name over the first few."""

    def high() -> None:
        for hole, board in deals:
            omaha_high(hole, board)

    def low() -> None:
        for hole, board in deals:
            omaha_low8(hole, board)

    def high_low() -> None:
        for hole, board in deals:
            omaha_high_low8(hole, board)

    def shown() -> None:
        for hole, board in few:
            hand = omaha_high(hole, board)
            _ = hand.cards, hand.name

    return {"high": high, "low": low, "high_low": high_low, "shown": shown}


def _peer_runs(deals: list, few: list) -> dict[str, Callable[[], None]]:
    """The same workloads for the peers: phevaluator's high over every deal, pokerkit's over
    the first few (its cards parsed beforehand)."""
    pokerkit_few = [(list(Card.parse("".join(h))), list(Card.parse("".join(b)))) for h, b in few]

    def high() -> None:
        for hole, board in deals:
            evaluate_omaha_cards(*board, *hole)

    def low() -> None:
        for hole, board in pokerkit_few:
            with suppress(ValueError):  # pokerkit's way of saying: no qualifying low
                OmahaEightOrBetterLowHand.from_game(hole, board)

    def high_low() -> None:
        for hole, board in pokerkit_few:
            OmahaHoldemHand.from_game(hole, board)
            with suppress(ValueError):
                OmahaEightOrBetterLowHand.from_game(hole, board)

    def shown() -> None:
        for hole, board in pokerkit_few:
            _ = str(OmahaHoldemHand.from_game(hole, board))

    return {"high": high, "low": low, "high_low": high_low, "shown": shown}


def measure_evaluation(settings: Settings) -> list[Measurement]:
    """Omaha hand evaluation through the public API, against phevaluator (C) and pokerkit."""
    deals = make_deals(settings.deals)
    few = deals[: settings.slow_peer_deals]
    ours, peers = _our_runs(deals, few), _peer_runs(deals, few)
    # phevaluator and ours alternate, so that both see the same machine state.
    high_ours = high_peer = 0.0
    for _ in range(settings.repeats):
        high_peer = max(high_peer, per_second(peers["high"], len(deals), 1))
        high_ours = max(high_ours, per_second(ours["high"], len(deals), 1))
    # pokerkit runs on the first `slow_peer_deals` deals only; rates per second stay comparable.
    n, repeats = len(few), settings.repeats
    return [
        Measurement("omaha_high evaluations", high_ours, "phevaluator", high_peer, "/s"),
        Measurement(
            "omaha_low8 evaluations",
            per_second(ours["low"], len(deals), repeats),
            "pokerkit",
            per_second(peers["low"], n, 1),
            "/s",
        ),
        Measurement(
            "omaha_high_low8 (both halves)",
            per_second(ours["high_low"], len(deals), repeats),
            "pokerkit",
            per_second(peers["high_low"], n, 1),
            "/s",
        ),
        Measurement(
            "omaha_high with .cards and .name",
            per_second(ours["shown"], n, repeats),
            "pokerkit",
            per_second(peers["shown"], n, 1),
            "/s",
        ),
    ]


_IMPORT_PROBE = """
import sys, time
def rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
before = rss_kib()
started = time.perf_counter()
__import__(sys.argv[1])
elapsed = time.perf_counter() - started
print(elapsed * 1000, (rss_kib() - before) / 1024)
"""


def _import_cost(module: str) -> tuple[float, float]:
    """(milliseconds, MiB of resident memory) to import `module` in a fresh interpreter."""
    output = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, module], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(output[0]), float(output[1])


def measure_evaluation_startup(settings: Settings) -> list[Measurement]:
    """Building our tables at import, against importing phevaluator (its tables are in C)."""
    ours = min((_import_cost("poker.engine.evaluate") for _ in range(3)), key=lambda c: c[0])
    peer = min((_import_cost("phevaluator") for _ in range(3)), key=lambda c: c[0])
    return [
        Measurement("import evaluate (table build)", ours[0], "phevaluator", peer[0], "ms", False),
        Measurement(
            "import evaluate, resident memory", ours[1], "phevaluator", peer[1], "MiB", False
        ),
    ]


# ---------------------------------------------------------------------------- hand play

PLO_STACKS = [10_000] * 6  # 6-max PLO $0.50/$1, 100 big blinds each
PLO_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
_PK_CARD = {card: next(iter(Card.parse(card))) for card in FULL_DECK}


def _plo_deal(number: int) -> tuple[random.Random, list[str]]:
    """Hand `number`'s generator and deck: both engines get the same ones."""
    rng = random.Random(SEED + number)
    return rng, rng.sample(FULL_DECK, 52)


def _start_plo(deck: list[str]) -> Hand:
    """The benchmark's table: 6-max PLO, button on seat 6."""
    return Hand.start(
        game="omaha",
        structure="pot-limit",
        small_blind=50,
        big_blind=100,
        seats=dict(enumerate(PLO_STACKS, start=1)),
        button=6,
        small_blind_seat=1,
        big_blind_seat=2,
        deck=deck,
    )


def _our_plo_hand(number: int) -> list[int]:
    rng, deck = _plo_deal(number)
    hand = _start_plo(deck)
    play_randomly(rng, hand)
    return [seat["final_stack"] for seat in hand.result["seats"]]


def _pokerkit_plo_hand(number: int) -> list[int]:
    """pokerkit plays the same hand: it posts, burns, shows, kills and pushes chips itself;
    it deals when it asks to, from our deck order (its own dealing automation would shuffle)."""
    rng, deck = _plo_deal(number)
    state = PotLimitOmahaHoldem.create_state(
        PLO_AUTOMATIONS, True, 0, (50, 100), 100, PLO_STACKS, 6, mode=Mode.CASH_GAME
    )
    state.deck_cards = deque(_PK_CARD[card] for card in deck)
    while state.status:
        if state.can_deal_hole():
            state.deal_hole()
        elif state.can_deal_board():
            state.deal_board()
        elif state.actor_index is None:
            raise AssertionError("pokerkit stopped with nobody to act")
        else:
            to_call = state.checking_or_calling_amount
            low = high = 0
            if state.can_complete_bet_or_raise_to():
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
            kind, amount = random_decision(rng, to_call, low, high)
            if kind == "fold":
                state.fold()
            elif kind == "check_call":
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(amount)
    return list(state.stacks)


def measure_hand_play(settings: Settings) -> list[Measurement]:
    """Random-play 6-max PLO hands, showdowns included, ours against pokerkit.

    Both play hand i from the same deck with the same random policy (simulate.random_decision,
    fed each engine's own legal actions and the same generator); pokerkit plays the first
    hands of the set only (it needs about 10 ms a hand), ours all of them, best of `repeats`.
    """
    ours_count = settings.deals // 50
    peer_count = settings.slow_peer_deals // 10

    def ours() -> None:
        for number in range(ours_count):
            _our_plo_hand(number)

    def pokerkit() -> None:
        for number in range(peer_count):
            _pokerkit_plo_hand(number)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns about cash-game oddities
        same = sum(_our_plo_hand(k) == _pokerkit_plo_hand(k) for k in range(peer_count))
        peer = per_second(pokerkit, peer_count, 1)
    print(f"  (hand play: the same finishing stacks in {same} of {peer_count} hands)")
    return [
        Measurement(
            "6-max PLO random-play hands",
            per_second(ours, ours_count, settings.repeats),
            "pokerkit",
            peer,
            "hands/s",
        )
    ]


def measure_state_size(settings: Settings) -> list[Measurement]:
    """Bytes of a serialised mid-hand state: 6-max PLO on the turn, all six in (median).

    Ours is `Hand.to_json()` (the whole state: setup and deck, every event so far, ready to
    continue); pokerkit's is its State pickled (the only way it serialises one).
    """
    ours_sizes, peer_sizes = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for number in range(201):
            _, deck = _plo_deal(number)
            hand = _start_plo(deck)
            while hand.street < 2:  # everyone calls and checks: six players see the turn
                legal = hand.legal_actions()
                hand.act(legal.seat, "call" if legal.call else "check")
            ours_sizes.append(len(hand.to_json().encode()))
            state = PotLimitOmahaHoldem.create_state(
                PLO_AUTOMATIONS, True, 0, (50, 100), 100, PLO_STACKS, 6, mode=Mode.CASH_GAME
            )
            state.deck_cards = deque(_PK_CARD[card] for card in deck)
            while len(state.board_cards) < 4:
                if state.can_deal_hole():
                    state.deal_hole()
                elif state.can_deal_board():
                    state.deal_board()
                else:
                    state.check_or_call()
            peer_sizes.append(len(pickle.dumps(state)))
    middle = len(ours_sizes) // 2
    return [
        Measurement(
            "mid-hand state, 6 players, turn",
            sorted(ours_sizes)[middle],
            "pokerkit",
            sorted(peer_sizes)[middle],
            "bytes",
            False,
        )
    ]


SECTIONS: list[Callable[[Settings], list[Measurement]]] = [
    measure_evaluation_startup,
    measure_evaluation,
    measure_hand_play,
    measure_state_size,
]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (smaller samples)")
    settings = QUICK if parser.parse_args(argv).quick else FULL
    print(f"Python {sys.version.split()[0]}, {settings}")
    for section in SECTIONS:
        for measurement in section(settings):
            print(measurement.line(), flush=True)


if __name__ == "__main__":
    main()
