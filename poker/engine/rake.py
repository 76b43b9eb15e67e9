"""Rake schedules as data (RULES.md section 8).

A schedule is a plain JSON-able dict so staff can keep and edit it in the database; this module
only reads it. The shape:

    {
      "name": "fixed limit (RULES.md 8)",
      "tiers": [                      # chosen by the big blind, in cents
        {
          "big_blind_from": 0,        # this tier applies from this big blind upwards
          "bands": [                  # chosen by the number of players dealt in
            {"players_from": 2, "players_to": 10,
             "steps": [[500, 50], [1200, 75], [2000, 100]]},   # pot reaches: rake
          ],
        },
      ],
    }

A band either has "steps" ([pot reached, rake] pairs: the rake of the highest step the pot
reaches) or "per_dollar" with "cap" and "minimum" (so many cents per whole dollar of the pot,
capped, and zero when under the minimum). The tier used is the last one whose "big_blind_from"
is at most the table's big blind; stakes below the first tier use the first tier. In fixed limit
the big blind is the small bet, so "$2/$4 to $10/$20" starts at a big blind of 200.

No flop, no drop is the hand's business (it asks for rake only when a flop was dealt).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "FIXED_LIMIT_RAKE",
    "POT_LIMIT_RAKE",
    "RakeSchedule",
    "default_rake_schedule",
]


def _steps(*pairs: tuple[int, int]) -> list[list[int]]:
    return [[pot, rake] for pot, rake in pairs]


FIXED_LIMIT_RAKE: dict[str, Any] = {
    "name": "fixed limit (RULES.md 8)",
    "tiers": [
        {  # $0.50/$1 and $1/$2 (and anything smaller)
            "big_blind_from": 0,
            "bands": [
                {
                    "players_from": 2,
                    "players_to": 10,
                    "steps": _steps((500, 50), (1200, 75), (2000, 100)),
                },
            ],
        },
        {  # $2/$4 to $10/$20
            "big_blind_from": 200,
            "bands": [
                {"players_from": 2, "players_to": 3, "steps": _steps((2000, 100))},
                {
                    "players_from": 4,
                    "players_to": 5,
                    "steps": _steps((2000, 100), (3000, 150), (4000, 200)),
                },
                {
                    "players_from": 6,
                    "players_to": 10,
                    "steps": _steps(
                        (2000, 100), (3000, 150), (4000, 200), (5000, 250), (6000, 300)
                    ),
                },
            ],
        },
        {  # $15/$30 to $30/$60 (and anything larger)
            "big_blind_from": 1500,
            "bands": [
                {"players_from": 2, "players_to": 3, "steps": _steps((4000, 100))},
                {
                    "players_from": 4,
                    "players_to": 5,
                    "steps": _steps((4000, 100), (5500, 150), (7000, 200)),
                },
                {
                    "players_from": 6,
                    "players_to": 10,
                    "steps": _steps(
                        (4000, 100), (5500, 150), (7000, 200), (8500, 250), (10000, 300)
                    ),
                },
            ],
        },
    ],
}

POT_LIMIT_RAKE: dict[str, Any] = {
    "name": "pot limit (RULES.md 8)",
    "tiers": [
        {
            "big_blind_from": 0,
            "bands": [
                {
                    "players_from": 2,
                    "players_to": 3,
                    "per_dollar": 5,
                    "cap": 100,
                    "minimum": 10,
                },
                {
                    "players_from": 4,
                    "players_to": 5,
                    "per_dollar": 5,
                    "cap": 200,
                    "minimum": 10,
                },
                {
                    "players_from": 6,
                    "players_to": 10,
                    "per_dollar": 5,
                    "cap": 300,
                    "minimum": 10,
                },
            ],
        },
    ],
}


def _whole(value: Any, what: str, minimum: int = 0) -> int:
    if type(value) is not int or value < minimum:
        raise ValueError(f"{what} must be a whole number of cents >= {minimum}, not {value!r}")
    return value


class _Band:
    __slots__ = ("cap", "minimum", "per_dollar", "players_from", "players_to", "steps")

    def __init__(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise ValueError(f"a rake band must be an object, not {data!r}")
        self.players_from = _whole(data.get("players_from"), "players_from", 2)
        self.players_to = _whole(data.get("players_to"), "players_to", self.players_from)
        has_steps, has_per_dollar = "steps" in data, "per_dollar" in data
        if has_steps == has_per_dollar:
            raise ValueError("a rake band has either 'steps' or 'per_dollar'")
        self.steps: list[tuple[int, int]] = []
        self.per_dollar = self.cap = self.minimum = 0
        if has_steps:
            steps = data["steps"]
            if not isinstance(steps, list) or not steps:
                raise ValueError("'steps' must be a non-empty list of [pot reached, rake]")
            previous = -1
            for step in steps:
                if not isinstance(step, list | tuple) or len(step) != 2:
                    raise ValueError(f"a rake step is [pot reached, rake], not {step!r}")
                reached = _whole(step[0], "pot reached", 1)
                if reached <= previous:
                    raise ValueError("rake steps must rise with the pot")
                previous = reached
                self.steps.append((reached, _whole(step[1], "rake")))
        else:
            self.per_dollar = _whole(data["per_dollar"], "per_dollar")
            self.cap = _whole(data.get("cap"), "cap")
            self.minimum = _whole(data.get("minimum", 0), "minimum")

    def rake(self, pot: int) -> int:
        if self.steps:
            taken = 0
            for reached, rake in self.steps:
                if pot >= reached:
                    taken = rake
            return taken
        taken = min(self.per_dollar * (pot // 100), self.cap)
        return 0 if taken < self.minimum else taken


class RakeSchedule:
    """A rake schedule read from its data; `rake()` says how much a pot pays."""

    __slots__ = ("_tiers", "data")

    def __init__(self, data: dict[str, Any]) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("tiers"), list):
            raise ValueError("a rake schedule is an object with a list of 'tiers'")
        if not data["tiers"]:
            raise ValueError("a rake schedule needs at least one tier")
        tiers: list[tuple[int, list[_Band]]] = []
        for tier in data["tiers"]:
            if not isinstance(tier, dict) or not isinstance(tier.get("bands"), list):
                raise ValueError("a rake tier is an object with a list of 'bands'")
            start = _whole(tier.get("big_blind_from"), "big_blind_from")
            if tiers and start <= tiers[-1][0]:
                raise ValueError("rake tiers must rise with the big blind")
            tiers.append((start, [_Band(band) for band in tier["bands"]]))
        self._tiers = tiers
        self.data = data

    @classmethod
    def from_data(cls, data: dict[str, Any] | RakeSchedule | None) -> RakeSchedule | None:
        if data is None or isinstance(data, RakeSchedule):
            return data
        return cls(data)

    def to_data(self) -> dict[str, Any]:
        return self.data

    def rake(self, *, pot: int, players_dealt_in: int, big_blind: int) -> int:
        """The rake for a pot of `pot` cents (never more than the pot)."""
        bands = self._tiers[0][1]
        for start, tier_bands in self._tiers:
            if big_blind >= start:
                bands = tier_bands
        for band in bands:
            if band.players_from <= players_dealt_in <= band.players_to:
                return min(band.rake(pot), pot)
        return 0


def default_rake_schedule(structure: str) -> RakeSchedule:
    """The house schedule of RULES.md section 8 for a betting structure."""
    if structure == "limit":
        return RakeSchedule(FIXED_LIMIT_RAKE)
    if structure == "pot-limit":
        return RakeSchedule(POT_LIMIT_RAKE)
    raise ValueError(f"unknown betting structure {structure!r}")
