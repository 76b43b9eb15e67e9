"""Random legal play, to exercise the engine and measure it.

    python -m poker.engine.simulate --game omaha --structure pot-limit --seats 6 \\
        --hands 10000 --seed 1 [--phh DIR] [--rake]

Plays K hands at a table of N seats (button moving one seat a hand, fresh random stacks each
hand, some of them tiny so that short blinds and all-ins happen), checks after every hand that
chips are conserved (final stacks plus rake equal the starting stacks; exit status 1 if not),
and prints the hands per second. With --phh it writes every hand as a PHH file.

This is the one module of the engine allowed a random generator: a seeded `random.Random`,
passed around explicitly, drives the policy and (simulation only) the deck order. Real hands
get their deck from the table's CSPRNG shuffle, never from here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from random import Random

from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand
from poker.engine.rake import default_rake_schedule

__all__ = ["choose_action", "main", "play_randomly", "random_decision", "random_table"]

LIMIT_STAKES = {"small_bet": 200, "big_bet": 400}  # $2/$4: blinds $1/$2
POT_LIMIT_STAKES = {"small_blind": 50, "big_blind": 100}  # $0.50/$1


def random_decision(
    rng: Random, to_call: int, raise_min: int, raise_max: int
) -> tuple[str, int | None]:
    """The random policy, on terms any engine can offer: ("fold" | "check_call" | "raise", to).

    `raise_max` is 0 when no bet or raise is open. Raise sizes are the minimum, the maximum or
    anything between, a third of the time each, so the limits are exercised. Kept free of our
    engine's types so the benchmark can drive pokerkit with exactly the same choices.
    """
    roll = rng.random()
    can_raise = raise_max > 0
    if to_call and roll < 0.25:
        return "fold", None
    if not can_raise or roll < (0.75 if to_call else 0.7):
        return "check_call", None
    size = rng.random()
    if size < 1 / 3:
        return "raise", raise_min
    if size < 2 / 3:
        return "raise", raise_max
    return "raise", rng.randint(raise_min, raise_max)


def choose_action(rng: Random, hand: Hand) -> tuple[int, str, int | None]:
    """(seat, action, amount) for the player to act, by `random_decision`."""
    legal = hand.legal_actions()
    assert legal is not None
    kind, amount = random_decision(rng, legal.call, legal.min_to, legal.max_to)
    if kind == "fold":
        return legal.seat, "fold", None
    if kind == "check_call":
        return legal.seat, ("call" if legal.call else "check"), None
    return legal.seat, legal.raise_kind or "raise", amount


def play_randomly(rng: Random, hand: Hand) -> Hand:
    """Play the hand to its end with the random policy."""
    while hand.result is None:
        hand.act(*choose_action(rng, hand))
    return hand


def random_table(
    rng: Random,
    *,
    game: str,
    structure: str,
    seats: int,
    button: int = 1,
    rake: bool = False,
) -> dict:
    """Keyword arguments for `Hand.start`: seats 1..N, blinds after `button`, random stacks."""
    stakes = LIMIT_STAKES if structure == "limit" else POT_LIMIT_STAKES
    big_blind = stakes.get("big_blind", stakes.get("small_bet", 0))
    stacks = {}
    for seat in range(1, seats + 1):
        if rng.random() < 0.1:
            stacks[seat] = rng.randint(1, 3 * big_blind)  # short: blinds and calls go all-in
        else:
            stacks[seat] = rng.randint(20 * big_blind, 200 * big_blind)
    after_button = [(button + k - 1) % seats + 1 for k in range(1, seats + 1)]
    if seats == 2:
        small_blind_seat, big_blind_seat = button, after_button[0]
    else:
        small_blind_seat, big_blind_seat = after_button[0], after_button[1]
    return {
        "game": game,
        "structure": structure,
        "seats": stacks,
        "button": button,
        "small_blind_seat": small_blind_seat,
        "big_blind_seat": big_blind_seat,
        "deck": rng.sample(FULL_DECK, 52),
        "rake": default_rake_schedule(structure) if rake else None,
        **stakes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m poker.engine.simulate", description=__doc__)
    parser.add_argument("--game", choices=["omaha", "omaha8"], required=True)
    parser.add_argument("--structure", choices=["limit", "pot-limit"], required=True)
    parser.add_argument("--seats", type=int, required=True)
    parser.add_argument("--hands", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--phh", type=Path, help="write every hand as a PHH file in this folder")
    parser.add_argument("--rake", action="store_true", help="take rake (off by default)")
    options = parser.parse_args(argv)
    most = 10 if options.structure == "limit" else 6
    if not 2 <= options.seats <= most:
        parser.error(f"{options.structure} seats 2-{most} players")
    if options.hands < 1:
        parser.error("--hands must be at least 1")
    if options.phh:
        from poker.engine.phh import dumps  # only when asked: keeps the timing loop lean

        options.phh.mkdir(parents=True, exist_ok=True)

    rng = Random(options.seed)
    showdowns = rake_total = 0
    playing = 0.0
    for number in range(1, options.hands + 1):
        button = (number - 1) % options.seats + 1
        table = random_table(
            rng,
            game=options.game,
            structure=options.structure,
            seats=options.seats,
            button=button,
            rake=options.rake,
        )
        started = time.perf_counter()
        hand = play_randomly(rng, Hand.start(**table))
        playing += time.perf_counter() - started
        result = hand.result
        assert result is not None
        final = sum(seat["final_stack"] for seat in result["seats"])
        if final + result["rake"] != sum(table["seats"].values()) or any(
            seat["final_stack"] < 0 for seat in result["seats"]
        ):
            print(f"hand {number}: chips not conserved: {result}", file=sys.stderr)
            return 1
        showdowns += bool(result["showdown"])
        rake_total += result["rake"]
        if options.phh:
            path = options.phh / f"hand-{number:06d}.phh"
            path.write_text(dumps(hand, hand_number=number))
    print(
        f"{options.hands} hands of {options.game} {options.structure}, {options.seats} seats, "
        f"seed {options.seed}: {options.hands / playing:,.0f} hands/s "
        f"({showdowns} showdowns, rake {rake_total} cents); chips conserved"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
