"""Position names (poker.engine.positions) for "My hands"."""

import pytest

from poker.engine.positions import POSITIONS, position_names


@pytest.mark.parametrize(
    ("seats", "button", "small", "big", "expected"),
    [
        # Heads-up: the button posts the small blind and is the BTN.
        ([2, 4], 4, 4, 2, {4: "BTN", 2: "BB"}),
        ([2, 3, 4], 4, 2, 3, {4: "BTN", 2: "SB", 3: "BB"}),
        ([2, 3, 5, 6, 1], 1, 2, 3, {1: "BTN", 2: "SB", 3: "BB", 5: "HJ", 6: "CO"}),
        ([3, 4, 5, 6, 1, 2], 2, 3, 4, {2: "BTN", 3: "SB", 4: "BB", 5: "UTG", 6: "HJ", 1: "CO"}),
        # Ten-handed, every name once.
        ([3, 4, 5, 6, 7, 8, 9, 10, 1, 2], 2, 3, 4,
         {2: "BTN", 3: "SB", 4: "BB", 5: "UTG", 6: "UTG+1", 7: "UTG+2", 8: "MP", 9: "MP+1",
          10: "HJ", 1: "CO"}),
        # A dead button (its player left) and no small blind: the rest still named.
        ([3, 4, 5], 2, None, 3, {3: "BB", 4: "HJ", 5: "CO"}),
    ],
)  # fmt: skip
def test_positions(seats, button, small, big, expected):
    names = position_names(seats=seats, button=button, small_blind_seat=small, big_blind_seat=big)
    assert names == expected
    assert set(names.values()) <= set(POSITIONS)
