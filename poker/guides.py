"""The rules and help pages: one per game the room deals, with the room's
timing, disconnection and ratholing policy, its standard rake, and the showdown and odd-chip
rules (RULES.md 1-8). The figures come from the code that applies them, not from the text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cashier.ratholing import FREQUENT_RATHOLER, RATHOLE_WINDOW
from poker.engine.rake import default_rake_schedule
from poker.models import Table


@dataclass(frozen=True)
class GameGuide:
    slug: str
    game: str
    structure: str

    @property
    def hi_lo(self) -> bool:
        return self.game == Table.Game.OMAHA8

    @property
    def pot_limit(self) -> bool:
        return self.structure == Table.Structure.POT_LIMIT

    @property
    def title(self) -> str:
        return f"{Table.Game(self.game).label} · {Table.Structure(self.structure).label}"


GUIDES = {
    guide.slug: guide
    for guide in (
        GameGuide("omaha-high-fixed-limit", Table.Game.OMAHA, Table.Structure.LIMIT),
        GameGuide("pot-limit-omaha", Table.Game.OMAHA, Table.Structure.POT_LIMIT),
        GameGuide("omaha-hi-lo-fixed-limit", Table.Game.OMAHA8, Table.Structure.LIMIT),
        GameGuide("omaha-hi-lo-pot-limit", Table.Game.OMAHA8, Table.Structure.POT_LIMIT),
    )
}


def guide_for(*, game: str, structure: str) -> GameGuide:
    return next(g for g in GUIDES.values() if (g.game, g.structure) == (game, structure))


def timing() -> dict[str, int]:
    """The room's standard clock (a table's own settings are on its page), from the model."""
    fields = {field.name: field.default for field in Table._meta.fields}
    return {
        "action_seconds": fields["action_seconds"],
        "countdown_seconds": fields["countdown_seconds"],
        "plain_seconds": fields["action_seconds"] - fields["countdown_seconds"],
        "disconnect_grace_seconds": fields["disconnect_grace_seconds"],
        "time_bank_seconds": fields["time_bank_seconds"],
        "time_bank_refill_seconds": fields["time_bank_refill_seconds"],
        "sit_out_minutes": fields["sit_out_limit_seconds"] // 60,
        "seat_offer_seconds": fields["seat_offer_seconds"],
        "min_buy_in_big_blinds": fields["min_buy_in_big_blinds"],
        "max_buy_in_big_blinds": fields["max_buy_in_big_blinds"],
        "rathole_minutes": int(RATHOLE_WINDOW.total_seconds() // 60),
        "frequent_ratholer": FREQUENT_RATHOLER,
    }


def rake_rows(structure: str) -> list[dict[str, Any]]:
    """The standard rake schedule of a structure as rows: from which big blind (the small bet
    in fixed limit), for how many players dealt in, and its steps or its rate."""
    rows = []
    tiers = default_rake_schedule(structure).to_data()["tiers"]
    for index, tier in enumerate(tiers):
        below = tiers[index + 1]["big_blind_from"] if index + 1 < len(tiers) else None
        for band in tier["bands"]:
            rows.append(
                {
                    "big_blind_from": tier["big_blind_from"],
                    "big_blind_below": below,
                    "players_from": band["players_from"],
                    "players_to": band["players_to"],
                    "steps": [{"pot": pot, "rake": rake} for pot, rake in band.get("steps", [])],
                    "per_dollar": band.get("per_dollar"),
                    "cap": band.get("cap"),
                    "minimum": band.get("minimum"),
                }
            )
    return rows
