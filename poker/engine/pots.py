"""Main and side pots, rake taken from them, and the split of each pot (RULES.md 7 and 8).

Players are identified by their index in the hand, which runs clockwise from the first seat
left of the button; so "clockwise from the first seat left of the button" is ascending index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["build_pots", "split_evenly", "split_pot", "take_rake"]


def build_pots(committed: Sequence[int], folded: Sequence[bool]) -> list[tuple[int, list[int]]]:
    """One pot per all-in level: [(amount, eligible indices)], main pot first.

    A level is what a player still in the hand put in; each pot holds, from every player
    (folded ones too), the chips between the previous level and this one.
    """
    levels = sorted({committed[i] for i in range(len(committed)) if not folded[i]})
    pots: list[tuple[int, list[int]]] = []
    below = 0
    for level in levels:
        amount = 0
        for chips in committed:
            if chips > below:
                amount += (level if chips > level else chips) - below
        eligible = [i for i in range(len(committed)) if not folded[i] and committed[i] >= level]
        if amount:
            pots.append((amount, eligible))
        below = level
    # Chips of folded players above the top level (cannot happen once uncalled bets are
    # returned, but chips must never vanish): they go to the last pot.
    extra = sum(chips - below for chips in committed if chips > below)
    if extra:
        amount, eligible = pots[-1]
        pots[-1] = (amount + extra, eligible)
    return pots


def take_rake(pot_amounts: Sequence[int], rake: int) -> list[int]:
    """The rake taken from each pot: main pot first, then the side pots in order."""
    taken = []
    for amount in pot_amounts:
        part = min(amount, rake)
        taken.append(part)
        rake -= part
    return taken


def split_evenly(amount: int, winners: Sequence[int]) -> list[int]:
    """Equal shares; odd chips one at a time to the winners in order (clockwise)."""
    share, odd = divmod(amount, len(winners))
    return [share + 1 if k < odd else share for k in range(len(winners))]


def _best(indices: Sequence[int], values: Sequence[Any]) -> list[int]:
    best = None
    winners: list[int] = []
    for i in indices:
        value = values[i]
        if value is None:
            continue
        if best is None or value > best:
            best, winners = value, [i]
        elif value == best:
            winners.append(i)
    return winners


def split_pot(
    amount: int,
    eligible: Sequence[int],
    high_values: Sequence[Any],
    low_values: Sequence[Any] | None,
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Who wins a pot and how much: ([(index, high share)], [(index, low share)]).

    `high_values[i]` is None for a player who does not contest the pot (folded or mucked);
    `low_values` is None in a high-only game, and holds None for players without a qualifying
    low. Hi/lo: the pot halves, the odd chip of the halving to the high side; with no
    qualifying low among the eligible, the high hand takes it all; ties split their half.
    """
    high_winners = _best(eligible, high_values)
    low_winners = _best(eligible, low_values) if low_values is not None else []
    if not high_winners:  # one player left uncontested; the caller sends eligible = [winner]
        high_winners = list(eligible)
    if low_winners:
        low_half = amount // 2
        high_half = amount - low_half
    else:
        high_half, low_half = amount, 0
    high = list(zip(high_winners, split_evenly(high_half, high_winners), strict=True))
    low = (
        list(zip(low_winners, split_evenly(low_half, low_winners), strict=True))
        if low_winners
        else []
    )
    return high, low
