"""The RNG integrity battery: statistical tests of the shuffle and of the generator behind it.

Pure like the rest of the engine: the shuffle and `randbelow` come in from outside (the room
passes `shuffle_deck(secrets.randbelow)` and `secrets.randbelow`), and nothing here reads a
clock or a file. p-values are computed with the standard library only: the chi-square upper
tail is the regularized upper incomplete gamma function Q(df/2, x/2), by its power series below
x = a + 1 and by its continued fraction (modified Lentz) above, the textbook pair (Numerical
Recipes 6.2, Cephes `igamc`); the runs test's tail is an exact binomial sum. That is about sixty
lines we test against closed forms, where SciPy would bring a 40 MB dependency for two calls.

Statistics (six, docs/fairness.md "The battery"):
- shuffle: card-by-position chi-square over N decks, the first card dealt, the first two cards
  dealt as an ordered pair;
- raw generator output, a stream of `randbelow(52)` draws: value frequency, serial pairs
  (non-overlapping), and runs above and below the middle.

Verdict: the battery as a whole is held at 99% confidence, so each statistic must reach
p >= 0.01 / 6 (Bonferroni; it holds whatever the dependence between the statistics). A
statistic that falls below is measured once more on fresh data and the battery fails only if
it falls below again: a perfect generator then fails a run with probability at most
6 * (0.01 / 6)^2 < 2e-5, while a real bias fails the second sample as surely as the first.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from poker.engine.cards import FULL_DECK

__all__ = [
    "ALPHA",
    "MIN_RAW_DRAWS",
    "MIN_SHUFFLES",
    "RAW_MODULUS",
    "BatteryReport",
    "StatisticResult",
    "battery_run",
    "binomial_half_two_sided_p",
    "chi_square_sf",
    "regularized_gamma_q",
]

DECK_SIZE = len(FULL_DECK)
CARD_INDEX = {card: i for i, card in enumerate(FULL_DECK)}
# The raw stream draws randbelow(52): the deck's size, the largest bound the shuffle asks for,
# and not a power of two, so a modulo-biased generator shows there.
RAW_MODULUS = DECK_SIZE
ALPHA = 0.01
# At least five expected per cell in the largest tables (the first pair: 52 * 51 cells; raw
# serial pairs: 52 * 52 cells from two draws each), where Pearson's chi-square holds.
MIN_SHUFFLES = 5 * DECK_SIZE * (DECK_SIZE - 1)
MIN_RAW_DRAWS = 2 * 5 * RAW_MODULUS * RAW_MODULUS

_EPSILON = 1e-15
_TINY = 1e-300
_MAX_ITERATIONS = 100_000


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a), the regularized upper incomplete gamma function."""
    if a <= 0 or x < 0 or math.isnan(x):
        raise ValueError(f"Q(a, x) needs a > 0 and x >= 0, not a={a}, x={x}")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        # P(a, x) by its series; Q is 1 - P and stays above about 0.4 in this region, so the
        # subtraction loses nothing.
        term = total = 1.0 / a
        denominator = a
        for _ in range(_MAX_ITERATIONS):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * _EPSILON:
                return max(0.0, 1.0 - total * math.exp(log_prefix))
        raise ArithmeticError(f"the series for P({a}, {x}) did not converge")
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPSILON:
            return min(1.0, math.exp(log_prefix) * h)
    raise ArithmeticError(f"the continued fraction for Q({a}, {x}) did not converge")


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with `df` degrees of freedom: the test's p-value."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    return regularized_gamma_q(df / 2, max(x, 0.0) / 2)


def binomial_half_two_sided_p(k: int, n: int) -> float:
    """Two-sided exact p-value of `k` successes in `n` fair coin flips: twice the smaller tail,
    summed from the observed count outwards until the terms stop mattering."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, not k={k}, n={n}")
    low = min(k, n - k)
    if 2 * low == n:
        return 1.0
    log_n_fact = math.lgamma(n + 1)
    log_half_n = n * math.log(2)
    total = 0.0
    for j in range(low, -1, -1):
        term = math.exp(log_n_fact - math.lgamma(j + 1) - math.lgamma(n - j + 1) - log_half_n)
        total += term
        if term < total * _EPSILON:
            break
    return min(1.0, 2 * total)


@dataclass(frozen=True)
class StatisticResult:
    """One statistic's outcome. `p_values` has one entry, or two when the first fell below
    `threshold` and the statistic was measured again on fresh data; `passed` is the last one's."""

    name: str
    says: str
    statistic: float
    df: int | None
    expected: float
    samples: int
    p_values: tuple[float, ...]
    threshold: float
    passed: bool


@dataclass(frozen=True)
class BatteryReport:
    shuffles: int
    raw_draws: int
    alpha: float
    threshold: float
    statistics: tuple[StatisticResult, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.statistics)

    def to_dict(self) -> dict:
        return {
            "passed": self.passed,
            "shuffles": self.shuffles,
            "raw_draws": self.raw_draws,
            "alpha": self.alpha,
            "threshold": self.threshold,
            "statistics": [
                asdict(result) | {"p_values": list(result.p_values)} for result in self.statistics
            ],
        }


@dataclass(frozen=True)
class _Measure:
    statistic: float
    df: int | None
    expected: float
    samples: int
    p_value: float


def _pearson(counts: Sequence[int], expected: float) -> float:
    return math.fsum((count - expected) ** 2 for count in counts) / expected


def _deck_tallies(shuffle: Callable[[], list[str]], shuffles: int) -> dict[str, list[int]]:
    """Counts over `shuffles` decks: card by position (52 x 52), the first card, the first
    two cards as an ordered pair (52 x 52, the diagonal impossible)."""
    positions = [0] * (DECK_SIZE * DECK_SIZE)
    first = [0] * DECK_SIZE
    pairs = [0] * (DECK_SIZE * DECK_SIZE)
    index = CARD_INDEX
    for _ in range(shuffles):
        deck = shuffle()
        cards = [index[card] for card in deck]
        if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
            raise ValueError(f"the shuffle returned {len(deck)} cards, not one full deck")
        for position, card in enumerate(cards):
            positions[position * DECK_SIZE + card] += 1
        first[cards[0]] += 1
        pairs[cards[0] * DECK_SIZE + cards[1]] += 1
    return {"positions": positions, "first": first, "pairs": pairs}


def _raw_stream(randbelow: Callable[[int], int], draws: int) -> bytes:
    """`draws` values of randbelow(52), one byte each (10^7 draws take 10 MB, not 80)."""
    stream = bytearray(draws)
    for k in range(draws):
        value = randbelow(RAW_MODULUS)
        if type(value) is not int or not 0 <= value < RAW_MODULUS:
            raise ValueError(f"randbelow({RAW_MODULUS}) returned {value!r}")
        stream[k] = value
    return bytes(stream)


def _card_by_position(tallies: dict[str, list[int]], shuffles: int) -> _Measure:
    # Each deck adds one permutation matrix, whose cells are not independent: over N decks the
    # centred counts have covariance N/51 on the (51^2)-dimensional space of matrices with zero
    # row and column sums, so Pearson's sum times 51/52 is chi-square with 51^2 df.
    expected = shuffles / DECK_SIZE
    statistic = _pearson(tallies["positions"], expected) * (DECK_SIZE - 1) / DECK_SIZE
    df = (DECK_SIZE - 1) ** 2
    return _Measure(statistic, df, expected, shuffles, chi_square_sf(statistic, df))


def _first_card(tallies: dict[str, list[int]], shuffles: int) -> _Measure:
    expected = shuffles / DECK_SIZE
    statistic = _pearson(tallies["first"], expected)
    df = DECK_SIZE - 1
    return _Measure(statistic, df, expected, shuffles, chi_square_sf(statistic, df))


def _first_pair(tallies: dict[str, list[int]], shuffles: int) -> _Measure:
    cells = DECK_SIZE * (DECK_SIZE - 1)
    expected = shuffles / cells
    pairs = tallies["pairs"]
    if any(pairs[card * DECK_SIZE + card] for card in range(DECK_SIZE)):
        raise ValueError("a deck dealt the same card twice")
    off_diagonal = [pairs[i] for i in range(len(pairs)) if i // DECK_SIZE != i % DECK_SIZE]
    statistic = _pearson(off_diagonal, expected)
    df = cells - 1
    return _Measure(statistic, df, expected, shuffles, chi_square_sf(statistic, df))


def _raw_frequency(stream: bytes) -> _Measure:
    counts = [stream.count(value) for value in range(RAW_MODULUS)]
    expected = len(stream) / RAW_MODULUS
    statistic = _pearson(counts, expected)
    df = RAW_MODULUS - 1
    return _Measure(statistic, df, expected, len(stream), chi_square_sf(statistic, df))


def _raw_serial(stream: bytes) -> _Measure:
    # Non-overlapping pairs are independent draws from the 52 x 52 cells, so Pearson's sum is
    # chi-square with 52^2 - 1 df (overlapping pairs would need Good's correction).
    counts = [0] * (RAW_MODULUS * RAW_MODULUS)
    pairs = len(stream) // 2
    for k in range(pairs):
        counts[stream[2 * k] * RAW_MODULUS + stream[2 * k + 1]] += 1
    expected = pairs / len(counts)
    statistic = _pearson(counts, expected)
    df = len(counts) - 1
    return _Measure(statistic, df, expected, pairs, chi_square_sf(statistic, df))


_HIGH = bytes(int(value >= RAW_MODULUS // 2) for value in range(256))


def _raw_runs(stream: bytes) -> _Measure:
    # Runs of low (below 26) and high values: each is exactly half the outcomes, and for fair
    # coin flips each neighbour pair differs independently with probability 1/2, so the number
    # of changes is Binomial(n - 1, 1/2) and the p-value is an exact binomial tail.
    highs = stream.translate(_HIGH)
    changes = sum(1 for a, b in itertools.pairwise(highs) if a != b)
    flips = len(stream) - 1
    return _Measure(
        float(changes + 1),
        None,
        flips / 2 + 1,
        len(stream),
        binomial_half_two_sided_p(changes, flips),
    )


_DeckStatistic = Callable[[dict[str, list[int]], int], _Measure]
_StreamStatistic = Callable[[bytes], _Measure]
_SHUFFLE_STATISTICS: tuple[tuple[str, str, _DeckStatistic], ...] = (
    ("card_by_position", "each card equally likely at each of the 52 positions", _card_by_position),
    ("first_card", "the first card dealt is each of the 52 cards equally often", _first_card),
    ("first_pair", "the first two cards dealt are each ordered pair equally often", _first_pair),
)
_RAW_STATISTICS: tuple[tuple[str, str, _StreamStatistic], ...] = (
    ("raw_frequency", "randbelow(52) gives each value equally often", _raw_frequency),
    ("raw_serial", "consecutive draws of randbelow(52) are each pair equally often", _raw_serial),
    ("raw_runs", "runs of low and high draws are as many as for independent draws", _raw_runs),
)
STATISTIC_NAMES = tuple(name for name, _, _ in _SHUFFLE_STATISTICS + _RAW_STATISTICS)
_SHUFFLE_NAMES = frozenset(name for name, _, _ in _SHUFFLE_STATISTICS)


def battery_run(
    *,
    shuffle: Callable[[], list[str]],
    randbelow: Callable[[int], int],
    shuffles: int,
    raw_draws: int,
    alpha: float = ALPHA,
    retry: bool = True,
) -> BatteryReport:
    """Run the six statistics: `shuffles` decks from `shuffle()` and `raw_draws` draws of
    `randbelow(52)`. A statistic below alpha / 6 is measured again on fresh data when `retry`
    (the default, see the module's docstring) and the second measure decides."""
    if type(shuffles) is not int or shuffles < MIN_SHUFFLES:
        raise ValueError(f"the battery needs at least {MIN_SHUFFLES} shuffles, not {shuffles}")
    if type(raw_draws) is not int or raw_draws < MIN_RAW_DRAWS:
        raise ValueError(f"the battery needs at least {MIN_RAW_DRAWS} raw draws, not {raw_draws}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    threshold = alpha / len(STATISTIC_NAMES)

    tallies = _deck_tallies(shuffle, shuffles)
    stream = _raw_stream(randbelow, raw_draws)
    first_measures = [(name, says, measure(tallies, shuffles))
                      for name, says, measure in _SHUFFLE_STATISTICS]  # fmt: skip
    first_measures += [(name, says, measure(stream))
                       for name, says, measure in _RAW_STATISTICS]  # fmt: skip
    del tallies, stream

    # A statistic below the threshold is measured again on one fresh sample of its kind (all
    # the shuffle statistics that failed share one new set of decks).
    @functools.cache
    def fresh_tallies() -> dict[str, list[int]]:
        return _deck_tallies(shuffle, shuffles)

    @functools.cache
    def fresh_stream() -> bytes:
        return _raw_stream(randbelow, raw_draws)

    def on_fresh_decks(measure: _DeckStatistic) -> Callable[[], _Measure]:
        return lambda: measure(fresh_tallies(), shuffles)

    def on_fresh_stream(measure: _StreamStatistic) -> Callable[[], _Measure]:
        return lambda: measure(fresh_stream())

    again = {name: on_fresh_decks(measure) for name, _, measure in _SHUFFLE_STATISTICS}
    again |= {name: on_fresh_stream(measure) for name, _, measure in _RAW_STATISTICS}

    results = []
    for name, says, first in first_measures:
        last = first
        p_values: tuple[float, ...] = (first.p_value,)
        if first.p_value < threshold and retry:
            last = again[name]()
            p_values += (last.p_value,)
        results.append(
            StatisticResult(
                name=name,
                says=says,
                statistic=last.statistic,
                df=last.df,
                expected=last.expected,
                samples=last.samples,
                p_values=p_values,
                threshold=threshold,
                passed=last.p_value >= threshold,
            )
        )
    return BatteryReport(
        shuffles=shuffles,
        raw_draws=raw_draws,
        alpha=alpha,
        threshold=threshold,
        statistics=tuple(results),
    )
