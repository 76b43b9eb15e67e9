"""A hand as PokerStars-style text, the format PokerTracker 4 and Hold'em Manager 3 import.

Pure Python (no Django): it reads a hand record (histories/record.py) and writes what the
record shows, so a player's file holds their own hole cards and the cards shown at showdown,
never mucked ones. Amounts follow PokerStars' habits: "$1" for whole dollars, "$0.50" else;
"raises $2 to $3" gives the raise and the street total; "Uncalled bet ($x) returned to";
Hi/Lo pots are collected in halves. Times are UTC with the Eastern time PokerStars leads with.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

GAME_NAMES = {
    ("omaha", "pot-limit"): "Omaha Pot Limit",
    ("omaha", "limit"): "Omaha Limit",
    ("omaha8", "pot-limit"): "Omaha Hi/Lo Pot Limit",
    ("omaha8", "limit"): "Omaha Hi/Lo Limit",
}
STREETS = {"flop": "FLOP", "turn": "TURN", "river": "RIVER"}
EASTERN = ZoneInfo("America/New_York")


def usd(cents: int) -> str:
    """$1 for 100, $0.50 for 50, $1234.05 for 123405 (no grouping, as PokerStars writes)."""
    whole, part = divmod(abs(int(cents)), 100)
    sign = "-" if cents < 0 else ""
    return f"{sign}${whole}" if part == 0 else f"{sign}${whole}.{part:02d}"


def _cards(cards) -> str:
    return "[" + " ".join(cards) + "]"


def _header(record: dict[str, Any]) -> list[str]:
    table = record["table"]
    started = datetime.fromisoformat(record["started_at"])
    if record["structure"] == "limit":
        stakes = f"{usd(table['small_bet'])}/{usd(table['big_bet'])}"
    else:
        stakes = f"{usd(table['small_blind'])}/{usd(table['big_blind'])}"
    game = GAME_NAMES[(record["game"], record["structure"])]
    eastern = started.astimezone(EASTERN)
    utc = started.astimezone(ZoneInfo("UTC"))
    return [
        f"PokerStars Hand #{record['id']}: {game} ({stakes} USD) - "
        f"{eastern:%Y/%m/%d %H:%M:%S} ET [{utc:%Y/%m/%d %H:%M:%S} UTC]",
        f"Table '{table['name']}' {table['max_seats']}-max Seat #{record['button']} is the button",
    ]


def _hand_name(entry: dict[str, Any], hi_lo: bool) -> str:
    high = (entry.get("high") or {}).get("name", "")
    if not hi_lo:
        return high
    low = entry.get("low")
    return f"HI: {high}" + (f"; LO: {low['name']}" if low else "")


def pokerstars_text(record: dict[str, Any]) -> str:
    """The hand of `record` as one PokerStars hand history (ends with a blank line)."""
    names = {seat["seat"]: seat["player"] for seat in record["seats"]}
    hi_lo = record["game"] == "omaha8"
    lines = _header(record)
    for seat in record["seats"]:
        lines.append(
            f"Seat {seat['seat']}: {names[seat['seat']]} ({usd(seat['starting_stack'])} in chips)"
        )
    steps = record["steps"]
    positions: dict[int, list[str]] = {record["button"]: ["button"]}
    folded_on: dict[int, str] = {}
    street = "preflop"
    board: list[str] = []
    bets_before: dict[int, int] = {}
    shown: dict[int, dict[str, Any]] = {e["seat"]: e for e in record["showdown"] if e.get("shown")}
    mucked: set[int] = set()
    collected: dict[int, int] = {}
    went_to_showdown = False
    for k, step in enumerate(steps):
        event = step["event"]
        kind = event["type"]
        who = names.get(event.get("seat"), "")
        bets_before = dict(steps[k - 1]["bets"]) if k else {}
        top = max(bets_before.values(), default=0)
        all_in = " and is all-in" if event.get("all_in") else ""
        if kind == "blind_posted":
            blind = "small blind" if event["blind"] == "small" else "big blind"
            positions.setdefault(event["seat"], []).append(blind)
            lines.append(f"{who}: posts {blind} {usd(event['amount'])}{all_in}")
        elif kind == "hole_cards_dealt":
            lines.append("*** HOLE CARDS ***")
            for number, cards in event["hole_cards"]:
                if cards:
                    lines.append(f"Dealt to {names[number]} {_cards(cards)}")
        elif kind == "action":
            action = event["action"]
            if action == "fold":
                folded_on[event["seat"]] = street
                lines.append(f"{who}: folds")
            elif action == "check":
                lines.append(f"{who}: checks")
            elif action == "call":
                lines.append(f"{who}: calls {usd(event['added'])}{all_in}")
            elif action == "bet":
                lines.append(f"{who}: bets {usd(event['to'])}{all_in}")
            else:
                lines.append(
                    f"{who}: raises {usd(event['to'] - top)} to {usd(event['to'])}{all_in}"
                )
        elif kind == "uncalled_bet_returned":
            lines.append(f"Uncalled bet ({usd(event['amount'])}) returned to {who}")
        elif kind == "street_dealt":
            street = event["street"]
            title = f"*** {STREETS[street]} ***"
            if board:
                lines.append(f"{title} {_cards(board)} {_cards(event['cards'])}")
            else:
                lines.append(f"{title} {_cards(event['cards'])}")
            board = board + list(event["cards"])
        elif kind == "showdown":
            went_to_showdown = True
            lines.append("*** SHOW DOWN ***")
        elif kind == "cards_shown":
            entry = shown.get(event["seat"], {"high": {"name": event.get("high") or ""}})
            lines.append(f"{who}: shows {_cards(event['cards'])} ({_hand_name(entry, hi_lo)})")
        elif kind == "cards_mucked":
            mucked.add(event["seat"])
            lines.append(f"{who}: mucks hand")
        elif kind == "pot_awarded":
            many = len(record["pots"]) > 1
            where = (
                "pot"
                if not many
                else "main pot"
                if event["pot"] == 0
                else f"side pot-{event['pot']}"
            )
            for share in [*event["high"], *event["low"]]:
                collected[share["seat"]] = collected.get(share["seat"], 0) + share["amount"]
                lines.append(
                    f"{names[share['seat']]} collected {usd(share['amount'])} from {where}"
                )
    if record["status"] == "cancelled":
        lines.append("*** HAND CANCELLED: every bet was returned ***")
    else:
        if not went_to_showdown:
            for seat in collected:
                lines.append(f"{names[seat]}: doesn't show hand")
        lines.extend(_summary(record, names, positions, folded_on, shown, mucked, collected, hi_lo))
    return "\n".join(lines) + "\n\n"


def _summary(record, names, positions, folded_on, shown, mucked, collected, hi_lo) -> list[str]:
    pots = record["pots"]
    total = sum(pot["amount"] for pot in pots)
    line = f"Total pot {usd(total)}"
    if len(pots) > 1:
        line += f" Main pot {usd(pots[0]['amount'])}."
        line += "".join(f" Side pot-{k} {usd(pot['amount'])}." for k, pot in enumerate(pots[1:], 1))
    lines = ["*** SUMMARY ***", f"{line} | Rake {usd(record['rake'])}"]
    if record["board"]:
        lines.append(f"Board {_cards(record['board'])}")
    where = {
        "preflop": "before Flop",
        "flop": "on the Flop",
        "turn": "on the Turn",
        "river": "on the River",
    }
    for seat in record["seats"]:
        number = seat["seat"]
        label = f"Seat {number}: {names[number]}" + "".join(
            f" ({p})" for p in positions.get(number, [])
        )
        won = collected.get(number, 0)
        if number in folded_on:
            lines.append(f"{label} folded {where[folded_on[number]]}")
        elif number in shown:
            result = f"and won ({usd(won)})" if won else "and lost"
            cards, name = _cards(shown[number]["cards"]), _hand_name(shown[number], hi_lo)
            lines.append(f"{label} showed {cards} {result} with {name}")
        elif number in mucked:
            lines.append(f"{label} mucked")
        elif won:
            lines.append(f"{label} collected ({usd(won)})")
        else:
            lines.append(f"{label} folded before Flop")
    return lines
