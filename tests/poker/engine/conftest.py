"""Builders shared by the engine tests: decks with chosen cards, scripted hands, random tables.

Scripted hands seat players 1..N with the button on seat N, so seat order is the engine's
order: seat 1 is left of the button (small blind), seat 2 the big blind, and so on.
Heads-up the button is seat 2 (small blind) and seat 1 the big blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

from hypothesis import strategies as st

from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand, LegalActions
from poker.engine.rake import default_rake_schedule
from poker.engine.simulate import random_decision, random_table


def _cards(cards: str | Sequence[str]) -> list[str]:
    if isinstance(cards, str):
        text = cards.replace(" ", "")
        return [text[k : k + 2] for k in range(0, len(text), 2)]
    return list(cards)


def build_deck(
    hole: Sequence[str | Sequence[str]] = (), board: str | Sequence[str] = "", players: int = 0
) -> list[str]:
    """A full deck dealing `hole[i]` to the i-th player (one card at a time) and `board`.

    Players beyond `hole` (up to `players`), board cards not named, the burns and the rest of
    the deck come from the unused cards in a fixed order.
    """
    holes = [_cards(cards) for cards in hole]
    board_cards = _cards(board)
    named = [card for cards in holes for card in cards] + board_cards
    assert len(set(named)) == len(named), "a card is named twice"
    spare = iter([card for card in FULL_DECK if card not in set(named)])
    n = max(players, len(holes))
    holes += [[] for _ in range(n - len(holes))]
    for cards in holes:
        cards.extend(next(spare) for _ in range(4 - len(cards)))
    board_cards += [next(spare) for _ in range(5 - len(board_cards))]
    flop, turn, river = board_cards[:3], board_cards[3], board_cards[4]
    deck = [holes[k % n][k // n] for k in range(4 * n)]
    deck += [next(spare), *flop, next(spare), turn, next(spare), river]
    deck.extend(spare)
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck


def new_hand(
    stacks: Sequence[int] = (1000, 1000, 1000),
    *,
    game: str = "omaha",
    structure: str = "pot-limit",
    small_blind: int | None = None,
    big_blind: int | None = None,
    small_bet: int | None = None,
    big_bet: int | None = None,
    hole: Sequence[str | Sequence[str]] = (),
    board: str | Sequence[str] = "",
    small_blind_seat: int | str | None = "default",
    big_blind_seat: int | None = None,
    extra_big_blind_seats: Sequence[int] = (),
    rake: Any = None,
    ante: int = 0,
) -> Hand:
    """A scripted hand: seats 1..N with these stacks, button on seat N; pot limit 5/10."""
    n = len(stacks)
    if small_blind_seat == "default":
        small_blind_seat = n if n == 2 else 1
    if big_blind_seat is None:
        big_blind_seat = 1 if n == 2 else 2
    if structure == "limit":  # blinds from the stakes unless given; $0.10/$0.20 by default
        small_bet = small_bet if small_bet is not None else 10
        big_bet = big_bet if big_bet is not None else 2 * small_bet
    else:
        small_blind = 5 if small_blind is None else small_blind
        big_blind = 10 if big_blind is None else big_blind
    return Hand.start(
        game=game,
        structure=structure,
        seats={seat: stack for seat, stack in enumerate(stacks, start=1)},
        button=n,
        small_blind_seat=small_blind_seat,  # type: ignore[arg-type]
        big_blind_seat=big_blind_seat,
        extra_big_blind_seats=extra_big_blind_seats,
        deck=build_deck(hole, board, players=n),
        small_blind=small_blind,
        big_blind=big_blind,
        small_bet=small_bet,
        big_bet=big_bet,
        rake=rake,
        ante=ante,
    )


def play(hand: Hand, *moves: str) -> Hand:
    """Apply moves written "SEAT ACTION [TO]", e.g. "3 raise 30", "1 call", "2 all_in"."""
    for move in moves:
        words = move.split()
        seat, action = int(words[0]), words[1]
        amount = int(words[2]) if len(words) > 2 else None
        hand.act(seat, action, amount)
    return hand


def final_stacks(hand: Hand) -> dict[int, int]:
    assert hand.result is not None
    return {seat["seat"]: seat["final_stack"] for seat in hand.result["seats"]}


def awards(hand: Hand) -> list[dict[str, Any]]:
    """Each pot as {amount, eligible, rake, high: {seat: share}, low: {seat: share}}."""
    assert hand.result is not None
    return [
        {
            "amount": pot["amount"],
            "eligible": pot["eligible"],
            "rake": pot["rake"],
            "high": {share["seat"]: share["amount"] for share in pot["high"]},
            "low": {share["seat"]: share["amount"] for share in pot["low"]},
        }
        for pot in hand.result["pots"]
    ]


def pokerkit_comparable_raise(
    hand: Hand, legal: LegalActions, short_all_ins: int
) -> tuple[int, int]:
    """The raise range (min, max) to offer a random policy so that pokerkit would play the
    same hand: no all-in raise short of a full bet in fixed limit, at most two in a pot-limit
    betting round (test_vs_pokerkit.py says why). (0, 0) when no raise is to be made."""
    if legal.raise_kind is None:
        return 0, 0
    limit = hand.structure == "limit"
    full_raise_to = hand.current_bet + (hand.bet_unit if limit else hand.min_raise)
    if legal.min_to < full_raise_to and (limit or short_all_ins >= 2):
        return 0, 0
    return legal.min_to, legal.max_to


def play_comparably(rng: Random, hand: Hand) -> Hand:
    """Play to the end with the simulator's random policy, kept within what pokerkit agrees on."""
    short_all_ins = 0
    while not hand.is_over:
        if hand.events[-1]["type"] != "action":
            short_all_ins = 0  # a new betting round
        legal = hand.legal_actions()
        low, high = pokerkit_comparable_raise(hand, legal, short_all_ins)
        kind, amount = random_decision(rng, legal.call, low, high)
        if kind == "fold":
            hand.act(legal.seat, "fold")
        elif kind == "check_call":
            hand.act(legal.seat, "call" if legal.call else "check")
        else:
            short_all_ins += amount < hand.current_bet + (
                hand.bet_unit if hand.structure == "limit" else hand.min_raise
            )
            hand.act(legal.seat, legal.raise_kind, amount)
    return hand


def comparable_table(rng: Random, game: str, structure: str, players: int) -> dict[str, Any]:
    """`Hand.start` arguments pokerkit can play too: stacks of at least a big blind."""
    table = random_table(rng, game=game, structure=structure, seats=players, button=players)
    big_blind = table.get("big_blind") or table["small_bet"]
    table["seats"] = {seat: max(stack, big_blind) for seat, stack in table["seats"].items()}
    return table


@st.composite
def tables(draw) -> dict:
    """Hypothesis: `Hand.start` arguments for a random table of any of the four games:
    2-10 players in fixed limit, 2-6 in pot limit, stacks from one chip up, blinds with and
    without a small blind, extra big blinds, dead buttons, rake on or off, any deck order."""
    structure = draw(st.sampled_from(["limit", "pot-limit"]))
    game = draw(st.sampled_from(["omaha", "omaha8"]))
    count = draw(st.integers(2, 10 if structure == "limit" else 6))
    numbers = sorted(
        draw(st.lists(st.integers(1, 10), min_size=count, max_size=count, unique=True))
    )
    stacks = {
        number: draw(st.one_of(st.integers(1, 40), st.integers(1, 40_000))) for number in numbers
    }
    # Heads-up the button is dealt in; otherwise it may be an empty seat (a dead button).
    button = draw(st.sampled_from(numbers)) if count == 2 else draw(st.integers(1, 10))
    first = next((k for k, number in enumerate(numbers) if number > button), 0)
    order = numbers[first:] + numbers[:first]
    big_blind = draw(st.sampled_from([2, 10, 100, 200, 1500]))
    if count == 2:
        big_blind_seat, small_blind_seat, extras = order[0], order[1], []
        if draw(st.booleans()) and draw(st.booleans()):
            small_blind_seat = None
    else:
        small_blind_seat = order[0] if draw(st.booleans()) or count < 4 else None
        big_blind_seat = order[1]
        extras = draw(st.lists(st.sampled_from(order[2:]), unique=True, max_size=3))
    table = {
        "game": game,
        "structure": structure,
        "seats": stacks,
        "button": button,
        "small_blind_seat": small_blind_seat,
        "big_blind_seat": big_blind_seat,
        "extra_big_blind_seats": extras,
        "deck": draw(st.permutations(FULL_DECK)),
        "rake": default_rake_schedule(structure) if draw(st.booleans()) else None,
    }
    small_blind = draw(st.integers(1, big_blind)) if small_blind_seat is not None else 0
    if structure == "limit":
        table.update(small_bet=big_blind, big_bet=2 * big_blind)
        if draw(st.booleans()) or small_blind_seat is None:
            table["small_blind"] = small_blind
    else:
        table.update(small_blind=small_blind, big_blind=big_blind)
    return table


# pokerkit's labels, in its own words, for the engine's categories.
POKERKIT_LABELS = {
    "high card": "High card",
    "one pair": "One pair",
    "two pair": "Two pair",
    "three of a kind": "Three of a kind",
    "straight": "Straight",
    "flush": "Flush",
    "full house": "Full house",
    "four of a kind": "Four of a kind",
    "straight flush": "Straight flush",
}
