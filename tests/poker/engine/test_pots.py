"""Pot building, rake taking and pot splitting, on plain numbers."""

from poker.engine.pots import build_pots, split_evenly, split_pot, take_rake


class Value:
    """A stand-in hand value: compares by number."""

    def __init__(self, number):
        self.number = number

    def __lt__(self, other):
        return self.number < other.number

    def __gt__(self, other):
        return self.number > other.number

    def __eq__(self, other):
        return self.number == other.number

    __hash__ = None


def test_worked_example_side_pot():
    """RULES.md 7: A and B 1000 each, C all-in for 100: main 300, side 1800."""
    assert build_pots([1000, 1000, 100], [False] * 3) == [(300, [0, 1, 2]), (1800, [0, 1])]


def test_folded_chips_stay_in_the_pots_they_reached():
    assert build_pots([50, 200, 100, 200], [True, False, False, False]) == [
        (350, [1, 2, 3]),
        (200, [1, 3]),
    ]


def test_equal_all_ins_make_one_level():
    assert build_pots([100, 100, 300, 300], [False] * 4) == [(400, [0, 1, 2, 3]), (400, [2, 3])]


def test_pots_sum_to_every_chip_committed():
    committed = [7, 300, 45, 300, 12, 999]
    folded = [True, False, False, True, False, False]
    assert sum(amount for amount, _ in build_pots(committed, folded)) == sum(committed)


def test_rake_comes_from_the_main_pot_first():
    assert take_rake([30, 500, 200], 100) == [30, 70, 0]
    assert take_rake([300, 500], 100) == [100, 0]
    assert take_rake([300], 0) == [0]


def test_split_evenly_odd_chips_one_at_a_time_in_order():
    assert split_evenly(100, [0, 1, 2]) == [34, 33, 33]
    assert split_evenly(101, [0, 1, 2]) == [34, 34, 33]
    assert split_evenly(7, [4]) == [7]


def test_split_pot_high_only():
    high = [Value(5), Value(9), None]
    assert split_pot(100, [0, 1, 2], high, None) == ([(1, 100)], [])


def test_split_pot_hi_lo_odd_chip_of_halving_to_high_and_quartering():
    high = [Value(9), Value(5), Value(5)]
    low = [None, Value(3), Value(3)]
    assert split_pot(101, [0, 1, 2], high, low) == ([(0, 51)], [(1, 25), (2, 25)])


def test_split_pot_hi_lo_without_low_goes_high():
    high = [Value(9), Value(5)]
    assert split_pot(101, [0, 1], high, [None, None]) == ([(0, 101)], [])


def test_split_pot_low_only_among_the_eligible():
    high = [Value(1), Value(9), Value(5)]
    low = [Value(8), None, None]
    assert split_pot(60, [1, 2], high, low) == ([(1, 60)], [])


def test_uncontested_pot_goes_to_its_only_eligible_player():
    assert split_pot(40, [3], [None] * 4, [None] * 4) == ([(3, 40)], [])
