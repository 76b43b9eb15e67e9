"""Position names at a table for the players dealt into a hand: the button (BTN), the blinds
(SB, BB) and, from the first to act before the flop to the seat right of the button, UTG,
UTG+1, UTG+2, MP, MP+1, HJ (hijack), CO (cutoff). Heads-up the button posts the small blind
and is the BTN."""

from __future__ import annotations

from collections.abc import Sequence

# The seats between the big blind and the button, by how many there are (10-handed: 7).
_BETWEEN = {
    0: [],
    1: ["CO"],
    2: ["HJ", "CO"],
    3: ["UTG", "HJ", "CO"],
    4: ["UTG", "MP", "HJ", "CO"],
    5: ["UTG", "UTG+1", "MP", "HJ", "CO"],
    6: ["UTG", "UTG+1", "UTG+2", "MP", "HJ", "CO"],
    7: ["UTG", "UTG+1", "UTG+2", "MP", "MP+1", "HJ", "CO"],
}
POSITIONS = ("BTN", "SB", "BB", "UTG", "UTG+1", "UTG+2", "MP", "MP+1", "HJ", "CO")


def position_names(
    *, seats: Sequence[int], button: int | None, small_blind_seat: int | None, big_blind_seat: int
) -> dict[int, str]:
    """{seat: position} for `seats` dealt in (clockwise from the seat left of the button)."""
    names = {big_blind_seat: "BB"}
    if small_blind_seat is not None and small_blind_seat != button:
        names[small_blind_seat] = "SB"
    if button is not None and button in seats:
        names[button] = "BTN"
    start = list(seats).index(big_blind_seat) + 1
    order = list(seats[start:]) + list(seats[:start])
    between = [seat for seat in order if seat not in names]
    names.update(zip(between, _BETWEEN[len(between)], strict=True))
    return names
