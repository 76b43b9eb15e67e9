"""A round of Omaha Showdown, the banked game against the house (RULES.md 9, seed 004).

Each player places an Ante and may add a Hole Card Bonus and a Final Hand Bonus; four hole
cards are dealt; each player Folds, Calls (Bet = 1 x Ante) or Raises (Bet = 2 x Ante); then
five community cards come and every wager is settled by the paytables passed in. Online it is
one player (``seats=1``); a land-based table seats up to seven against one board: every seat
decides, then one board settles them all. Pure like the rest of the engine: the deck's order
comes in from outside (`poker.engine.dealer.shuffle_deck`), money is integer cents::

    from poker.engine.showdown import ShowdownLimits, ShowdownRound, ShowdownError
    from poker.engine.showdown_paytables import default_paytables

    limits = ShowdownLimits(seats=1, max_aggregate_payout=5_000_000)   # per table
    game = ShowdownRound.open(limits=limits, paytables=default_paytables())
    game.place(1, ante=500, hole_card_bonus=100, final_hand_bonus=100)
    game.deal(shuffle_deck(secrets.randbelow))
    game.seats[1].hole              # four cards, to show that player
    try:
        game.decide(1, "raise")     # the last decision deals the board and settles
    except ShowdownError as error:  # error.code, error.reason; the round is unchanged
        ...
    game.result                     # per seat and per wager: stake, category, pays, net
    ShowdownRound.from_dict(game.to_dict())   # stored state, rebuilt and checked

Every refusal raises `ShowdownError` before anything changes. The house's share of a round is
``result["house_net"]``, minus the sum of the seats' nets: money is conserved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from poker.engine.cards import CARD_RANK, CARD_SUIT, parse_cards, validate_deck
from poker.engine.evaluate import HighHand, omaha_high
from poker.engine.showdown_paytables import PaytableError, ShowdownPaytables

MAX_SEATS = 7
DECISIONS = ("fold", "call", "raise")
BET_MULTIPLE = {"call": 1, "raise": 2}
WAGERS = ("ante", "bet", "hole_card_bonus", "final_hand_bonus")
PHASES = ("betting", "deciding", "settled")
HOLE_CARDS = 4
BOARD_CARDS = 5
STATE_VERSION = 1

# The Ante pays even money on three of a kind or better (RULES.md 9.5).
ANTE_PAYS = 1
QUALIFYING = frozenset(
    {
        "three of a kind",
        "straight",
        "flush",
        "full house",
        "four of a kind",
        "straight flush",
        "royal flush",
    }
)

# Four-card straights (RULES.md 9): four consecutive ranks, ace high J-Q-K-A or low A-2-3-4,
# no wraparound. As 13-bit rank masks (bit 0 a deuce, bit 12 an ace).
_ACE_LOW_FOUR = (1 << 12) | 0b111
FOUR_CARD_STRAIGHTS = frozenset({_ACE_LOW_FOUR} | {0b1111 << low for low in range(10)})


class ShowdownError(Exception):
    """A request the rules refuse now; the round is left exactly as it was."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class ShowdownLimits:
    """A table's settings (RULES.md 9.1): seats, the wager limits in cents, and the maximum
    aggregate payout of one round (the house pays at most that much in winnings over all the
    seats and wagers of a round; None: no cap). The defaults are the recommended limits."""

    seats: int = 1
    ante_min: int = 500
    ante_max: int = 20_000
    hole_card_bonus_min: int = 100
    hole_card_bonus_max: int = 10_000
    final_hand_bonus_min: int = 100
    final_hand_bonus_max: int = 5_000
    max_aggregate_payout: int | None = None

    def __post_init__(self) -> None:
        if type(self.seats) is not int or not 1 <= self.seats <= MAX_SEATS:
            raise ShowdownError(
                "bad_limits", f"a Showdown table has 1 to {MAX_SEATS} seats, not {self.seats!r}"
            )
        for wager in ("ante", "hole_card_bonus", "final_hand_bonus"):
            low, high = getattr(self, f"{wager}_min"), getattr(self, f"{wager}_max")
            if type(low) is not int or type(high) is not int or not 0 < low <= high:
                raise ShowdownError(
                    "bad_limits",
                    f"{wager} limits must be whole cents with 0 < min <= max, got "
                    f"{low!r} to {high!r}",
                )
        cap = self.max_aggregate_payout
        if cap is not None and (type(cap) is not int or cap <= 0):
            raise ShowdownError(
                "bad_limits", f"the maximum aggregate payout is whole cents above 0, not {cap!r}"
            )

    def range_of(self, wager: str) -> tuple[int, int]:
        return getattr(self, f"{wager}_min"), getattr(self, f"{wager}_max")

    def to_dict(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "ante_min": self.ante_min,
            "ante_max": self.ante_max,
            "hole_card_bonus_min": self.hole_card_bonus_min,
            "hole_card_bonus_max": self.hole_card_bonus_max,
            "final_hand_bonus_min": self.final_hand_bonus_min,
            "final_hand_bonus_max": self.final_hand_bonus_max,
            "max_aggregate_payout": self.max_aggregate_payout,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShowdownLimits:
        try:
            return cls(**data)
        except TypeError as error:
            raise ShowdownError("bad_state", f"unreadable table limits: {error}") from error


def hole_card_category(hole: Sequence[str]) -> str | None:
    """The Hole Card Bonus category of four hole cards alone (RULES.md 9), or None.

    Highest first: four of a kind, straight flush, three of a kind, flush (four of one suit),
    straight (four consecutive ranks, ace high or low, no wraparound), two pair, one pair.
    """
    cards = parse_cards(hole)
    if len(cards) != HOLE_CARDS:
        raise ValueError(f"the Hole Card Bonus looks at exactly 4 cards, got {len(cards)}")
    counts: dict[int, int] = {}
    for card in cards:
        counts[CARD_RANK[card]] = counts.get(CARD_RANK[card], 0) + 1
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        return "four of a kind"
    suited = len({CARD_SUIT[card] for card in cards}) == 1
    straight = sum(1 << rank for rank in counts) in FOUR_CARD_STRAIGHTS
    if straight and suited:
        return "straight flush"
    if shape[0] == 3:
        return "three of a kind"
    if suited:
        return "flush"
    if straight:
        return "straight"
    if shape[:2] == [2, 2]:
        return "two pair"
    if shape[0] == 2:
        return "one pair"
    return None


def final_hand_category(hand: HighHand) -> str:
    """The category a final hand is paid on: the evaluator's, with the royal flush apart."""
    category = hand.category
    if category == "straight flush" and hand.name == "royal flush":
        return "royal flush"
    return category


@dataclass
class ShowdownSeat:
    """One player's wagers, cards and decision in a round."""

    seat: int
    ante: int
    hole_card_bonus: int = 0
    final_hand_bonus: int = 0
    hole: tuple[str, ...] = ()
    decision: str | None = None

    @property
    def bet(self) -> int:
        """The Call or Raise bet (0 until decided, and after a fold)."""
        return self.ante * BET_MULTIPLE.get(self.decision or "", 0)

    @property
    def staked(self) -> int:
        """Everything the player has put on the table this round."""
        return self.ante + self.bet + self.hole_card_bonus + self.final_hand_bonus


class ShowdownRound:
    """One round at one table: betting -> deciding -> settled.

    `open` starts the betting; `place` takes each seat's wagers; `deal` deals four hole cards
    to every seat with an Ante, one at a time clockwise from seat 1 (the first seat to the
    dealer's left); `decide` takes each seat's decision once, in any order; the last one deals
    the five community cards (the next five cards of the deck, no burns) and settles.
    """

    def __init__(self, limits: ShowdownLimits, paytables: ShowdownPaytables) -> None:
        if not isinstance(limits, ShowdownLimits):
            raise ShowdownError("bad_limits", "limits must be ShowdownLimits")
        if not isinstance(paytables, ShowdownPaytables):
            raise ShowdownError("bad_paytables", "paytables must be ShowdownPaytables")
        self.limits = limits
        self.paytables = paytables
        self.phase = "betting"
        self.seats: dict[int, ShowdownSeat] = {}
        self.deck: tuple[str, ...] = ()
        self.board: tuple[str, ...] = ()
        self.decision_order: list[int] = []
        self.result: dict[str, Any] | None = None

    @classmethod
    def open(cls, *, limits: ShowdownLimits, paytables: ShowdownPaytables) -> ShowdownRound:
        return cls(limits, paytables)

    # -- betting -----------------------------------------------------------------------------

    def place(
        self, seat: int, *, ante: int, hole_card_bonus: int = 0, final_hand_bonus: int = 0
    ) -> ShowdownSeat:
        """A seat's wagers for this round: an Ante, and side bets of 0 (not placed) or within
        the table's limits. Once per seat, before the deal."""
        self._require_phase("betting", "wagers are placed before the deal")
        if type(seat) is not int or not 1 <= seat <= self.limits.seats:
            raise ShowdownError(
                "no_such_seat", f"seat {seat!r} is not a seat of this table (1-{self.limits.seats})"
            )
        if seat in self.seats:
            raise ShowdownError("already_placed", f"seat {seat} has already placed its wagers")
        self._check_wager("ante", ante, optional=False)
        self._check_wager("hole_card_bonus", hole_card_bonus, optional=True)
        self._check_wager("final_hand_bonus", final_hand_bonus, optional=True)
        placed = ShowdownSeat(
            seat=seat,
            ante=ante,
            hole_card_bonus=hole_card_bonus,
            final_hand_bonus=final_hand_bonus,
        )
        self.seats[seat] = placed
        return placed

    def _check_wager(self, wager: str, amount: object, *, optional: bool) -> None:
        low, high = self.limits.range_of(wager)
        label = wager.replace("_", " ")
        if type(amount) is not int:
            raise ShowdownError("bad_amount", f"the {label} is whole cents, not {amount!r}")
        if optional and amount == 0:
            return
        if not low <= amount <= high:
            allowed = f"{low} to {high} cents" + (" (or 0 for none)" if optional else "")
            raise ShowdownError(
                "outside_limits", f"the {label} of {amount} is outside this table's {allowed}"
            )

    # -- dealing -----------------------------------------------------------------------------

    def deal(self, deck: Sequence[str]) -> None:
        """Deal four hole cards to each seat that placed an Ante, from this deck order."""
        self._require_phase("betting", "the cards have already been dealt")
        if not self.seats:
            raise ShowdownError("no_wagers", "nobody has placed an Ante")
        try:
            checked = validate_deck(deck)
        except ValueError as error:
            raise ShowdownError("bad_deck", str(error)) from error
        order = sorted(self.seats)
        for index, seat in enumerate(order):
            self.seats[seat].hole = tuple(
                checked[k * len(order) + index] for k in range(HOLE_CARDS)
            )
        self.deck = checked
        self.phase = "deciding"

    @property
    def undecided(self) -> list[int]:
        """Seats still to decide, clockwise (a table service folds them when time runs out)."""
        if self.phase != "deciding":
            return []
        return [seat for seat in sorted(self.seats) if self.seats[seat].decision is None]

    def decide(self, seat: int, decision: str) -> None:
        """Fold, call (Bet = Ante) or raise (Bet = 2 x Ante), once per seat. The last decision
        deals the board and settles the round."""
        if self.phase == "betting":
            raise ShowdownError("not_dealt", "decisions come after the deal")
        self._require_phase("deciding", "the round is settled")
        if type(seat) is not int or seat not in self.seats:
            raise ShowdownError("no_such_seat", f"seat {seat!r} has no wagers in this round")
        if decision not in DECISIONS:
            raise ShowdownError(
                "bad_decision", f"decide one of {', '.join(DECISIONS)}, not {decision!r}"
            )
        player = self.seats[seat]
        if player.decision is not None:
            raise ShowdownError("already_decided", f"seat {seat} has already decided")
        player.decision = decision
        self.decision_order.append(seat)
        if not self.undecided:
            self._settle()

    def _require_phase(self, phase: str, reason: str) -> None:
        if self.phase != phase:
            code = {"betting": "not_dealt", "deciding": "wrong_phase", "settled": "settled"}
            raise ShowdownError(code[self.phase], reason)

    # -- settlement --------------------------------------------------------------------------

    def _settle(self) -> None:
        start = HOLE_CARDS * len(self.seats)
        self.board = self.deck[start : start + BOARD_CARDS]
        self.result = settle(self.paytables, self.limits, self.seats.values(), self.board)
        self.phase = "settled"

    # -- state -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain JSON-able data. It holds the deck, hence the board to
        come: store it, never send it to a player."""
        return {
            "version": STATE_VERSION,
            "limits": self.limits.to_dict(),
            "paytables": self.paytables.to_dict(),
            "phase": self.phase,
            "wagers": [
                {
                    "seat": player.seat,
                    "ante": player.ante,
                    "hole_card_bonus": player.hole_card_bonus,
                    "final_hand_bonus": player.final_hand_bonus,
                }
                for player in self.seats.values()
            ],
            "deck": list(self.deck),
            "decisions": [
                {"seat": seat, "decision": self.seats[seat].decision}
                for seat in self.decision_order
            ],
            "holes": {str(seat): list(player.hole) for seat, player in self.seats.items()},
            "board": list(self.board),
            "result": self.result,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShowdownRound:
        """Rebuild a stored round by replaying its inputs through the rules, and check the
        replay gives the stored cards and result (a corrupted row is refused, not resumed)."""
        try:
            if data["version"] != STATE_VERSION:
                raise ShowdownError("bad_state", f"unknown state version {data['version']!r}")
            game = cls(
                ShowdownLimits.from_dict(data["limits"]),
                ShowdownPaytables.from_dict(data["paytables"]),
            )
            for wager in data["wagers"]:
                game.place(
                    wager["seat"],
                    ante=wager["ante"],
                    hole_card_bonus=wager["hole_card_bonus"],
                    final_hand_bonus=wager["final_hand_bonus"],
                )
            if data["deck"]:
                game.deal(data["deck"])
            for decision in data["decisions"]:
                game.decide(decision["seat"], decision["decision"])
        except (KeyError, TypeError) as error:
            raise ShowdownError("bad_state", f"unreadable Showdown state: {error!r}") from error
        except PaytableError as error:
            raise ShowdownError("bad_state", f"stored paytables: {error}") from error
        except ShowdownError as error:
            raise ShowdownError("bad_state", f"the stored round breaks a rule: {error}") from error
        if game.to_dict() != dict(data):
            raise ShowdownError("bad_state", "the stored round does not replay to its own state")
        return game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShowdownRound):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable (object says hashable)


def settle(
    paytables: ShowdownPaytables,
    limits: ShowdownLimits,
    seats: Iterable[ShowdownSeat],
    board: Sequence[str],
) -> dict[str, Any]:
    """Settle every wager of a decided round against `board` (RULES.md 9.4-9.6), then apply
    the table's maximum aggregate payout to the winnings of the whole round."""
    board = tuple(board)
    results: list[dict[str, Any]] = []
    for player in sorted(seats, key=lambda placed: placed.seat):
        final = omaha_high(player.hole, board)
        category = final_hand_category(final)
        hole_category = hole_card_category(player.hole)
        wagers: dict[str, dict[str, Any]] = {}
        if player.decision == "fold":
            wagers["ante"] = _lost(player.ante, "fold")
        elif category in QUALIFYING:
            wagers["ante"] = _won(player.ante, category, ANTE_PAYS)
            wagers["bet"] = _won(player.bet, category, paytables.bet.pays[category])
        else:
            wagers["ante"] = _lost(player.ante, "lose")
            wagers["bet"] = _lost(player.bet, "lose")
        if player.hole_card_bonus:
            pays = paytables.hole_card_bonus.pays
            wagers["hole_card_bonus"] = (
                _won(player.hole_card_bonus, hole_category, pays[hole_category])
                if hole_category is not None and hole_category in pays
                else _lost(player.hole_card_bonus, "lose")
            )
        if player.final_hand_bonus:
            pays = paytables.final_hand_bonus.pays
            wagers["final_hand_bonus"] = (
                _won(player.final_hand_bonus, category, pays[category])
                if category in pays
                else _lost(player.final_hand_bonus, "lose")
            )
        results.append(
            {
                "seat": player.seat,
                "hole": list(player.hole),
                "decision": player.decision,
                "hole_cards": hole_category,
                "final_hand": {
                    "category": category,
                    "name": final.name,
                    "cards": list(final.cards),
                },
                "wagers": wagers,
            }
        )
    cap = _apply_payout_cap(results, limits.max_aggregate_payout)
    for seat in results:
        for wager in seat["wagers"].values():
            wager["net"] = wager["won"] if wager["result"] == "win" else -wager["stake"]
        seat["staked"] = sum(wager["stake"] for wager in seat["wagers"].values())
        seat["net"] = sum(wager["net"] for wager in seat["wagers"].values())
    return {
        "board": list(board),
        "seats": results,
        "payout_cap": cap,
        "house_net": -sum(seat["net"] for seat in results),
    }


def _won(stake: int, category: str, pays: int) -> dict[str, Any]:
    return {
        "stake": stake,
        "result": "win",
        "category": category,
        "pays": pays,
        "owed": stake * pays,
        "won": stake * pays,
    }


def _lost(stake: int, result: str) -> dict[str, Any]:
    return {"stake": stake, "result": result, "category": None, "pays": 0, "owed": 0, "won": 0}


def _apply_payout_cap(results: list[dict[str, Any]], cap: int | None) -> dict[str, Any]:
    """Hold the winnings of the round to the table's maximum aggregate payout (docs/rules.md).

    Over the cap, every winning wager is paid its share of the cap in proportion to what it
    was owed: whole cents rounded down, then the cents left over one each to the largest
    remainders (ties: seat order, then ante, bet, hole card bonus, final hand bonus), so the
    round pays exactly the cap. Stakes of winning wagers are always returned; losing wagers
    are collected in full.
    """
    winners = [
        wager
        for seat in results
        for name in WAGERS
        if (wager := seat["wagers"].get(name)) is not None and wager["owed"] > 0
    ]
    owed = sum(wager["owed"] for wager in winners)
    applied = cap is not None and owed > cap
    if applied:
        assert cap is not None
        shares = [divmod(wager["owed"] * cap, owed) for wager in winners]
        for wager, (whole, _) in zip(winners, shares, strict=True):
            wager["won"] = whole
        left = cap - sum(whole for whole, _ in shares)
        by_remainder = sorted(range(len(winners)), key=lambda k: -shares[k][1])
        for k in by_remainder[:left]:
            winners[k]["won"] += 1
    return {
        "limit": cap,
        "owed": owed,
        "paid": sum(wager["won"] for wager in winners),
        "applied": applied,
    }
