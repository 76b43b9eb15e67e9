"""Omaha Showdown's paytables as data (RULES.md 9): the Bet table and Hole Card Bonus and
Final Hand Bonus tables A-E, with the checks a staff-edited table must pass.

A paytable maps a hand category to "X to 1": a winning wager is returned plus X times it.
Tables are plain data so that the Django side can load them by data migration, let staff
edit them and show each table's paytable; this module only says which tables are valid::

    from poker.engine.showdown_paytables import Paytable, ShowdownPaytables, paytable

    custom = Paytable(kind="hole_card_bonus", name="hcb-house", pays={...})  # or ValueError
    tables = ShowdownPaytables(bet=paytable("bet"), hole_card_bonus=custom,
                               final_hand_bonus=paytable("fhb-a"))

A table lists every category of its kind (a line cannot be dropped by mistake; a pay of 0
returns the stake, a push), pays are integers from 0 to the kind's top award (RULES.md 9:
25:1 on the Bet, 100:1 Hole Card Bonus, 200:1 Final Hand Bonus), and nothing else is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

KINDS = ("bet", "hole_card_bonus", "final_hand_bonus")

# Each kind's categories, highest first. The Bet table's categories are the final hands of
# three of a kind or better (below that the Ante and Bet lose); the Hole Card Bonus names the
# four hole cards alone (a flush is four of one suit, a straight four consecutive ranks); the
# Final Hand Bonus pays a flush or better.
CATEGORIES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "bet": (
            "royal flush",
            "straight flush",
            "four of a kind",
            "full house",
            "flush",
            "straight",
            "three of a kind",
        ),
        "hole_card_bonus": (
            "four of a kind",
            "straight flush",
            "three of a kind",
            "flush",
            "straight",
            "two pair",
            "one pair",
        ),
        "final_hand_bonus": (
            "royal flush",
            "straight flush",
            "four of a kind",
            "full house",
            "flush",
        ),
    }
)

TOP_AWARD: Mapping[str, int] = MappingProxyType(
    {"bet": 25, "hole_card_bonus": 100, "final_hand_bonus": 200}
)

NAME_MAX_LENGTH = 40


class PaytableError(ValueError):
    """A paytable that breaks the rules of RULES.md 9; nothing was built."""


@dataclass(frozen=True)
class Paytable:
    """One paytable: its kind, a unique name, and "X to 1" per category (highest first)."""

    kind: str
    name: str
    pays: Mapping[str, int]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise PaytableError(f"unknown paytable kind {self.kind!r}: one of {', '.join(KINDS)}")
        if not isinstance(self.name, str) or not self.name.strip():
            raise PaytableError("a paytable needs a name")
        if len(self.name) > NAME_MAX_LENGTH:
            raise PaytableError(f"a paytable name has at most {NAME_MAX_LENGTH} characters")
        if not isinstance(self.pays, Mapping):
            raise PaytableError("pays must map each category to its 'X to 1'")
        known = CATEGORIES[self.kind]
        unknown = [category for category in self.pays if category not in known]
        if unknown:
            raise PaytableError(
                f"{self.kind} paytable {self.name!r}: unknown category {unknown[0]!r}; "
                f"the categories are {', '.join(known)}"
            )
        missing = [category for category in known if category not in self.pays]
        if missing:
            raise PaytableError(
                f"{self.kind} paytable {self.name!r} does not say what {missing[0]!r} pays"
            )
        top = TOP_AWARD[self.kind]
        for category in known:
            pay = self.pays[category]
            if type(pay) is not int or not 0 <= pay <= top:
                raise PaytableError(
                    f"{self.kind} paytable {self.name!r}: {category} pays {pay!r}; a pay is a "
                    f"whole number from 0 to the top award of {top} (to 1)"
                )
        # Stored in category order and read-only, so a table cannot change once checked.
        ordered = {category: self.pays[category] for category in known}
        object.__setattr__(self, "pays", MappingProxyType(ordered))

    @property
    def top_award(self) -> int:
        return max(self.pays.values())

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "pays": dict(self.pays)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Paytable:
        try:
            return cls(kind=data["kind"], name=data["name"], pays=data["pays"])
        except (KeyError, TypeError) as error:
            raise PaytableError(f"a paytable is {{kind, name, pays}}: {error}") from error

    def __hash__(self) -> int:
        return hash((self.kind, self.name, tuple(self.pays.items())))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Paytable):
            return NotImplemented
        return (self.kind, self.name, dict(self.pays)) == (other.kind, other.name, dict(other.pays))


@dataclass(frozen=True)
class ShowdownPaytables:
    """The three tables a Showdown table plays by (RULES.md 9: every table shows them)."""

    bet: Paytable
    hole_card_bonus: Paytable
    final_hand_bonus: Paytable

    def __post_init__(self) -> None:
        for kind in KINDS:
            table = getattr(self, kind)
            if not isinstance(table, Paytable) or table.kind != kind:
                raise PaytableError(f"{kind} must be a {kind} paytable, got {table!r}")

    def to_dict(self) -> dict[str, Any]:
        return {kind: getattr(self, kind).to_dict() for kind in KINDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShowdownPaytables:
        try:
            return cls(**{kind: Paytable.from_dict(data[kind]) for kind in KINDS})
        except (KeyError, TypeError) as error:
            raise PaytableError(f"the paytables are {{{', '.join(KINDS)}}}: {error}") from error


def _bet(name: str, pays: tuple[int, ...]) -> Paytable:
    return Paytable("bet", name, dict(zip(CATEGORIES["bet"], pays, strict=True)))


def _hole_card_bonus(name: str, pays: tuple[int, ...]) -> Paytable:
    return Paytable(
        "hole_card_bonus", name, dict(zip(CATEGORIES["hole_card_bonus"], pays, strict=True))
    )


def _final_hand_bonus(name: str, quads: int) -> Paytable:
    pays = (200, 100, quads, 5, 2)
    return Paytable(
        "final_hand_bonus", name, dict(zip(CATEGORIES["final_hand_bonus"], pays, strict=True))
    )


# RULES.md 9 (decisions: 004 publishes the edges, these tables reproduce them exactly).
BET = _bet("bet", (25, 20, 15, 3, 3, 2, 1))
HOLE_CARD_BONUS_TABLES = (
    _hole_card_bonus("hcb-a", (100, 50, 12, 10, 7, 4, 1)),
    _hole_card_bonus("hcb-b", (100, 50, 10, 9, 7, 5, 1)),
    _hole_card_bonus("hcb-c", (100, 50, 10, 8, 6, 5, 1)),
    _hole_card_bonus("hcb-d", (100, 50, 8, 7, 6, 5, 1)),
    _hole_card_bonus("hcb-e", (100, 50, 7, 7, 5, 5, 1)),
)
FINAL_HAND_BONUS_TABLES = (
    _final_hand_bonus("fhb-a", 60),
    _final_hand_bonus("fhb-b", 55),
    _final_hand_bonus("fhb-c", 50),
    _final_hand_bonus("fhb-d", 45),
    _final_hand_bonus("fhb-e", 40),
)
PAYTABLES: tuple[Paytable, ...] = (BET, *HOLE_CARD_BONUS_TABLES, *FINAL_HAND_BONUS_TABLES)

_BY_NAME = {table.name: table for table in PAYTABLES}


def paytable(name: str) -> Paytable:
    """One of RULES.md's tables by name: "bet", "hcb-a" ... "hcb-e", "fhb-a" ... "fhb-e"."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise PaytableError(
            f"no paytable named {name!r}; the tables are {', '.join(_BY_NAME)}"
        ) from None


def default_paytables() -> ShowdownPaytables:
    """RULES.md 9's default for a new table: the Bet table, Hole Card Bonus A, Final Hand
    Bonus A."""
    return ShowdownPaytables(
        bet=BET, hole_card_bonus=paytable("hcb-a"), final_hand_bonus=paytable("fhb-a")
    )
