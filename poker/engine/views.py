"""What each recipient may see of a hand: a player's seat view, the spectators' public view,
and events redacted per recipient. All plain JSON-able dicts.

Hidden information stays hidden: a player sees their own hole cards and nobody else's until
they are shown at showdown; nobody ever sees the deck, burn cards or mucked hands. A player's
`reading` (their best hand so far, poker.engine.reading) is made from their own cards and the
board, and is in their own view only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from poker.engine.hand import STREETS, Hand
from poker.engine.reading import HandReading, read_hand

__all__ = ["events_for", "public_view", "reading_for", "redact_event", "view_for"]


def _shown_cards(hand: Hand) -> dict[int, list[str]]:
    if hand.result is None:
        return {}
    return {entry["seat"]: entry["cards"] for entry in hand.result["showdown"] if entry["shown"]}


def reading_for(hand: Hand, seat: int | None) -> HandReading | None:
    """`seat`'s own best hand on the board so far, or None: before the flop, once they folded,
    and for anyone not dealt in (a spectator's `seat` is None)."""
    if seat not in hand.seats:
        return None
    i = hand.seats.index(seat)
    if hand.folded[i] or not hand.hole_cards[i]:
        return None
    return read_hand(hand.hole_cards[i], hand.board, hi_lo=hand.game == "omaha8")


def view_for(hand: Hand, seat: int | None) -> dict[str, Any]:
    """The table as `seat` sees it (None: a spectator); legal actions only for the one to act,
    the reading of the player's own hand only for them."""
    shown = _shown_cards(hand)
    seats = []
    for i, number in enumerate(hand.seats):
        if number == seat:
            cards: list[str] | None = list(hand.hole_cards[i])
        else:
            cards = shown.get(number)
        seats.append(
            {
                "seat": number,
                "stack": hand.stacks[i],
                "bet": hand.bets[i],
                "committed": hand.committed[i],
                "folded": hand.folded[i],
                "all_in": not hand.folded[i] and hand.stacks[i] == 0 and hand.result is None,
                "cards": cards,
            }
        )
    legal = hand.legal_actions()
    stakes = {
        "small_blind": hand.small_blind,
        "big_blind": hand.big_blind,
        "small_bet": hand.small_bet,
        "big_bet": hand.big_bet,
    }
    if hand.ante:  # a Sit & Go's level with antes; no key at all otherwise
        stakes["ante"] = hand.ante
    return {
        "you": seat,
        "game": hand.game,
        "structure": hand.structure,
        "stakes": stakes,
        "button": hand.button,
        "street": STREETS[hand.street],
        "board": list(hand.board),
        "pot": hand.pot,
        "current_bet": hand.current_bet if hand.result is None else 0,
        "seats": seats,
        "to_act": hand.to_act,
        "legal_actions": legal.to_dict() if legal is not None and legal.seat == seat else None,
        "reading": reading_for(hand, seat),
        "result": hand.result,
    }


def public_view(hand: Hand) -> dict[str, Any]:
    """What spectators see: no hole cards until they are shown at showdown."""
    return view_for(hand, None)


def redact_event(event: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
    """The event as `seat` (None: a spectator) may receive it; the original is not changed."""
    kind = event["type"]
    if kind == "hole_cards_dealt":
        return {
            "type": kind,
            "hole_cards": [
                [number, list(cards) if number == seat else None]
                for number, cards in event["hole_cards"]
            ],
        }
    if kind == "street_dealt":
        return {key: value for key, value in event.items() if key != "burn"}
    if kind == "runs_answered":  # who answered, never what (docs/protocol.md "Run it twice")
        return {key: value for key, value in event.items() if key != "agree"}
    return dict(event)


def events_for(hand: Hand, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
    """The hand's events from `start` on, redacted for `seat`."""
    return [redact_event(event, seat) for event in hand.events[start:]]


# How long the page takes to show an ended hand, so the next one waits for it (docs/rules.md
# "Showdown on the page"): each street dealt with nobody left to act is turned over after a
# pause (RUNOUT_PAGE_SECONDS, a little less: the page's pace, static/js/table.js RUNOUT_MS), and
# a showdown stays up to be read. The room scales them all alike (POKER_SHOWDOWN_PAUSE_SCALE).
RUNOUT_STREET_SECONDS = 1.5
RUNOUT_PAGE_SECONDS = 1.4
SHOWDOWN_READ_SECONDS = 2.0


def runout_streets(events: Sequence[Mapping[str, Any]]) -> int:
    """How many streets were dealt after the last action because every player still in was
    all-in (or all but one): the streets the page turns over one by one."""
    last_action = max((i for i, e in enumerate(events) if e["type"] == "action"), default=-1)
    return sum(1 for event in events[last_action + 1 :] if event["type"] == "street_dealt")


def ended_hand_display_seconds(events: Sequence[Mapping[str, Any]]) -> float:
    """The extra time an ended hand needs on the page before the next is dealt."""
    if not any(event["type"] == "showdown" for event in events):
        return 0.0
    return RUNOUT_STREET_SECONDS * runout_streets(events) + SHOWDOWN_READ_SECONDS


def players_at_flop(events: Sequence[Mapping[str, Any]], players_dealt: int) -> int:
    """How many players were still in the hand when the flop came (0: it never did)."""
    folded = 0
    for event in events:
        if event["type"] == "street_dealt" and event.get("street") == "flop":
            return players_dealt - folded
        if event["type"] == "action" and event.get("action") == "fold":
            folded += 1
    return 0
