"""What pokerkit pays a showdown, by its own conventions (its pots, its odd-chip split),
so our engine's stacks can be compared with pokerkit's hand for hand."""

from __future__ import annotations

from poker.engine.evaluate import omaha_high, omaha_low8
from poker.engine.hand import Hand


def stacks_by_pokerkit_conventions(hand: Hand) -> list[int]:
    """Our hand's pots paid out the way pokerkit pays (module docstring), rake off.

    pokerkit kills every shown hand that cannot win any part of a pot, then cuts the pots
    among the remaining players, halves each pot between high and low if anyone left has a low,
    and gives each half to the best hands among the pot's players (all of them when none has
    a low), odd chips to the first.
    """
    n = len(hand.seats)
    stacks = [hand.starting_stacks[i] - hand.committed[i] for i in range(n)]
    shown = {entry["seat"] for entry in hand.result["showdown"] if entry["shown"]}
    showing = [i for i in range(n) if hand.seats[i] in shown]
    if not showing:  # won without a showdown: one pot, one player
        stacks[hand.folded.index(False)] += sum(hand.committed)
        return stacks
    values = [{i: omaha_high(hand.hole_cards[i], hand.board) for i in showing}]
    if hand.game == "omaha8":
        values.append({i: omaha_low8(hand.hole_cards[i], hand.board) for i in showing})

    def can_win(i: int) -> bool:
        for by_player in values:
            for _, eligible in pokerkit_pots(hand, showing):
                contenders = [by_player[j] for j in eligible if by_player[j] is not None]
                if i in eligible and by_player[i] is not None and by_player[i] >= max(contenders):
                    return True
        return False

    alive = [i for i in showing if can_win(i)]
    kinds = [by_player for by_player in values if any(by_player[i] is not None for i in alive)]
    for amount, eligible in pokerkit_pots(hand, alive):
        part, odd = divmod(amount, len(kinds))
        for k, by_player in enumerate(kinds):
            contenders = [by_player[i] for i in eligible if by_player[i] is not None]
            best = max(contenders) if contenders else None
            winners = [i for i in eligible if by_player[i] == best]
            for i, share in split(part + (odd if k == 0 else 0), winners).items():
                stacks[i] += share
    return stacks


def split(amount: int, winners: list[int]) -> dict[int, int]:
    """pokerkit's split: equal shares, every odd chip to the first winner."""
    share, odd = divmod(amount, len(winners))
    return {i: share + (odd if k == 0 else 0) for k, i in enumerate(winners)}


def pokerkit_pots(hand: Hand, players: list[int]) -> list[tuple[int, tuple[int, ...]]]:
    """pokerkit's pots: cut at every contribution level, eligible = `players` at that level,
    neighbouring pots with the same eligible players merged."""
    pots: list[tuple[int, tuple[int, ...]]] = []
    below = 0
    for level in sorted(set(hand.committed)):
        amount = sum(min(chips, level) - min(chips, below) for chips in hand.committed)
        eligible = tuple(i for i in players if hand.committed[i] >= level)
        while pots and pots[-1][1] == eligible:
            amount += pots.pop()[0]
        if amount:
            pots.append((amount, eligible))
        below = level
    return pots
