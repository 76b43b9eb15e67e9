"""A hand as Open Hand History JSON (spec 1.4.6, hh-specs.handhistory.org), `.ohh`.

Pure Python (no Django), from a hand record (histories/record.py), so a player's file holds the
same cards as their page. Amounts are dollars as numbers (0.5 for 50 cents). An action's
`amount` is what it put in the pot as it was made (a blind, a call, a bet, or a raise's chips
in all, not its street total), uncalled or not. The spec has no action for an uncalled bet's
return; as in its reference examples, a pot's `amount` is what was contested (with `rake` what
the room took from it), so the part of a street's biggest wager that nobody matched is what
the actions put in beyond the pots. A cancelled hand has no pot (1.4.6 has no flag for it),
so no tracker counts a pot won. docs/rules.md, "Hand record formats". An extra big blind is
"Post Extra Blind". tests/histories/ohh-1.4.6.schema.json checks every file.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

SPEC_VERSION = "1.4.6"
GAME_TYPES = {"omaha": "Omaha", "omaha8": "OmahaHiLo"}
BET_TYPES = {"pot-limit": "PL", "limit": "FL"}
STREETS = {"preflop": "Preflop", "flop": "Flop", "turn": "Turn", "river": "River"}


# A Sit & Go's hand: its amounts are tournament chips, written as whole numbers.
_CHIPS: ContextVar[bool] = ContextVar("ohh_chips", default=False)


def dollars(cents: int | None) -> float:
    if _CHIPS.get():
        return int(cents or 0)
    return round((cents or 0) / 100, 2)


def tournament_info(sng: dict[str, Any]) -> dict[str, Any]:
    """The spec's `tournament_info` of a Sit & Go: one table (STT) flagged SNG, its buy-in and
    fee in dollars, the starting chips and the level's minutes."""
    return {
        "tournament_number": str(sng["id"]),
        "name": sng["name"],
        "start_date_utc": sng["started_at"],
        "currency": "USD",
        "buyin_amount": round(sng["buy_in"] / 100, 2),
        "fee_amount": round(sng["fee"] / 100, 2),
        "bounty_fee_amount": 0,
        "initial_stack": sng["starting_chips"],
        "type": "STT",
        "flags": ["SNG"],
        "speed": {"type": "Normal", "round_time": sng["level_minutes"]},
    }


def ohh_document(record: dict[str, Any], *, site_name: str = "Omaha Room") -> dict[str, Any]:
    """The OHH object ({"ohh": {...}}) of the hand in `record`; a Sit & Go's hand with
    `tournament` true, its `tournament_info`, and every amount in chips."""
    token = _CHIPS.set(bool(record.get("tournament")))
    try:
        return _document(record, site_name)
    finally:
        _CHIPS.reset(token)


def _document(record: dict[str, Any], site_name: str) -> dict[str, Any]:
    table = record["table"]
    sng = record.get("tournament")
    player_id = {seat["seat"]: seat["seat"] for seat in record["seats"]}  # ids: the seat numbers
    players = [
        {
            "id": player_id[seat["seat"]],
            "seat": seat["seat"],
            "name": seat["player"],
            "display": seat["player"],
            "starting_stack": dollars(seat["starting_stack"]),
        }
        for seat in record["seats"]
    ]
    play = _Rounds(player_id)
    for step in record["steps"]:
        play.event(step["event"])
    rounds = play.rounds
    pots = [
        {
            "number": k,
            "amount": dollars(pot["amount"]),
            "rake": dollars(pot.get("rake", 0)),
            "jackpot": 0,
            "player_wins": _wins(pot, player_id),
        }
        for k, pot in enumerate(record["pots"])
    ]
    if record["status"] == "cancelled":
        pots = []  # nobody won anything: every player got back what they put in
    you = record.get("you")
    return {
        "ohh": {
            "spec_version": SPEC_VERSION,
            "site_name": site_name,
            "network_name": site_name,
            "internal_version": "1",
            "tournament": bool(sng),
            **({"tournament_info": tournament_info(sng)} if sng else {}),
            "game_number": str(record["id"]),
            "start_date_utc": record["started_at"],
            "table_name": table["name"],
            "table_handle": str(table["id"]),
            "game_type": GAME_TYPES[record["game"]],
            "bet_limit": {"bet_type": BET_TYPES[record["structure"]], "bet_cap": 0},
            "table_size": table["max_seats"],
            "currency": "USD",
            "dealer_seat": record["button"],
            "small_blind_amount": dollars(table["small_blind"]),
            "big_blind_amount": dollars(table["big_blind"]),
            "ante_amount": dollars(table.get("ante", 0)),
            **({"hero_player_id": player_id[you]} if you is not None else {}),
            # The spec's flag for a board run twice (its only word for it: the second run's
            # streets are rounds of their own after the first's, docs/rules.md).
            "flags": ["Run_It_Twice"] if record.get("boards") else [],
            "players": players,
            "rounds": rounds,
            "pots": pots,
        }
    }


class _Rounds:
    """The hand's OHH rounds, filled one event at a time."""

    def __init__(self, player_id: dict[int, int]) -> None:
        self.player_id = player_id
        self.rounds: list[dict[str, Any]] = [
            {"id": 0, "street": "Preflop", "cards": [], "actions": []}
        ]
        self.number = 0
        self.big_blinds = 0

    def event(self, event: dict[str, Any]) -> None:
        kind, seat = event["type"], event.get("seat")
        if kind == "ante_posted":
            all_in = bool(event.get("all_in"))
            self._add("Post Ante", seat, amount=dollars(event["amount"]), is_allin=all_in)
        elif kind == "blind_posted":
            self._blind(event, seat)
        elif kind == "hole_cards_dealt":
            for number, cards in event["hole_cards"]:
                self._add("Dealt Cards", number, cards=list(cards) if cards else [])
        elif kind == "action":
            self._action(event, seat)
        elif kind == "street_dealt":
            self._round(STREETS[event["street"]], list(event["cards"]))
        elif kind == "showdown":
            self._round("Showdown", [])
        elif kind == "cards_shown":
            self._add("Shows Cards", seat, cards=list(event["cards"]))
        elif kind == "cards_mucked":
            self._add("Mucks Cards", seat)

    def _add(self, action: str, seat: int | None, **fields: Any) -> dict[str, Any]:
        self.number += 1
        entry: dict[str, Any] = {"action_number": self.number, "action": action}
        if seat is not None:
            entry["player_id"] = self.player_id[seat]
        entry.update(fields)
        self.rounds[-1]["actions"].append(entry)
        return entry

    def _round(self, street: str, cards: list[str]) -> None:
        self.rounds.append(
            {"id": len(self.rounds), "street": street, "cards": cards, "actions": []}
        )

    def _blind(self, event: dict[str, Any], seat: int) -> None:
        if event["blind"] == "small":
            name = "Post SB"
        else:
            name = "Post BB" if self.big_blinds == 0 else "Post Extra Blind"
            self.big_blinds += 1
        all_in = bool(event.get("all_in"))
        self._add(name, seat, amount=dollars(event["amount"]), is_allin=all_in)

    def _action(self, event: dict[str, Any], seat: int) -> None:
        fields: dict[str, Any] = {"is_allin": bool(event.get("all_in"))}
        if event.get("added"):
            fields["amount"] = dollars(event["added"])
        self._add(event["action"].capitalize(), seat, **fields)


def _wins(pot: dict[str, Any], player_id: dict[int, int]) -> list[dict[str, Any]]:
    """Each winner once a pot, the high and low halves together."""
    won: dict[int, int] = {}
    for share in [*pot["high"], *pot["low"]]:
        won[share["seat"]] = won.get(share["seat"], 0) + share["amount"]
    return [
        {"player_id": player_id[seat], "win_amount": dollars(amount), "cashout_amount": 0}
        for seat, amount in won.items()
    ]
