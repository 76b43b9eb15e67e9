"""A stored hand as one viewer is entitled to see it: the source of the hand's page, its
replayer and the API.

Built from the hand's append-only log (`HandEvent`) and its players (`HandPlayer`), never from
a page or a socket frame. A player sees their own hole cards and the cards shown at showdown;
mucked cards stay hidden from everyone, the player who mucked them included, as they were at
the table. Staff and auditors (`all_cards`) see every hole card and burn of a hand that is over.
A running hand has no record here: the table page shows it.
"""

from __future__ import annotations

from typing import Any

from poker.engine.views import redact_event
from poker.models import Hand, HandEvent
from poker.refusals import cancel_message
from poker.selectors import player_json, table_json
from tournaments.selectors import hand_tournament


class HandNotFound(Exception):
    """No hand of this id that the viewer may see (not theirs, running, or none): a 404."""


def _replay(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each event with the table after it: every stack, the street's bets, the pot and board.
    Amounts follow the engine's events exactly, so the last step's stacks are the hand's final
    stacks and its pot is empty (tests/histories/test_record.py holds it to that)."""
    stacks: dict[int, int] = {}
    bets: dict[int, int] = {}
    board: list[str] = []
    shared: list[str] | None = None  # the board before a second run (docs/rules.md)
    second: list[str] = []
    pot = 0
    steps = []
    for event in events:
        kind = event["type"]
        if kind == "hand_started":
            stacks = {seat: stack for seat, stack in event["seats"]}
            bets = dict.fromkeys(stacks, 0)
        elif kind == "ante_posted":  # dead chips: in the pot, not in the player's bet
            stacks[event["seat"]] -= event["amount"]
            pot += event["amount"]
        elif kind in ("blind_posted", "action") and event.get("amount", event.get("added")):
            paid = event.get("amount") if kind == "blind_posted" else event["added"]
            stacks[event["seat"]] -= paid
            bets[event["seat"]] += paid
            pot += paid
        elif kind == "uncalled_bet_returned":
            stacks[event["seat"]] += event["amount"]
            bets[event["seat"]] -= event["amount"]
            pot -= event["amount"]
        elif kind == "street_dealt" and event.get("run") == 2:
            second = (second or list(shared or [])) + list(event["cards"])
        elif kind == "street_dealt":
            bets = dict.fromkeys(stacks, 0)
            if event.get("run") == 1 and shared is None:
                shared = list(board)
            board = board + list(event["cards"])
        elif kind == "pot_awarded":
            bets = dict.fromkeys(stacks, 0)
            for share in [*event["high"], *event["low"]]:
                stacks[share["seat"]] += share["amount"]
                pot -= share["amount"]
            pot -= event.get("rake", 0)
        elif kind == "hand_ended":
            stacks = {seat: stack for seat, stack in event["stacks"]}
        steps.append(
            {
                "event": event,
                "stacks": [[seat, stack] for seat, stack in stacks.items()],
                "bets": [[seat, bet] for seat, bet in bets.items()],
                "pot": pot,
                "board": list(second if event.get("run") == 2 else board),
            }
        )
    return steps


def _visible(event: dict[str, Any], seat: int | None, all_cards: bool) -> dict[str, Any]:
    if all_cards:
        return dict(event)
    return redact_event(event, seat)


def _with_seats(tournament: dict | None, rows: dict) -> dict | None:
    """The Sit & Go's finishes named by the seat each player was dealt in this hand."""
    if tournament is None:
        return None
    seat_of = {row.player_id: number for number, row in rows.items()}
    finishes = [
        {"seat": seat_of[f["player_id"]], "place": f["place"], "prize": f["prize"]}
        for f in tournament["finishes"]
        if f["player_id"] in seat_of
    ]
    return {**tournament, "finishes": finishes}


def hand_record(*, hand_id: Any, viewer, all_cards: bool = False) -> dict[str, Any]:
    """The hand `hand_id` as `viewer` may see it; `all_cards` for staff and auditors.

    Raises HandNotFound unless the hand is over and the viewer was dealt in (or `all_cards`)."""
    if not isinstance(hand_id, int) or isinstance(hand_id, bool) or hand_id < 1:
        raise HandNotFound(hand_id)
    hand = (
        Hand.objects.filter(pk=hand_id)
        .exclude(status=Hand.Status.RUNNING)
        .select_related("table")
        .first()
    )
    if hand is None:
        raise HandNotFound(hand_id)
    rows = {
        row.seat: row
        for row in hand.hand_players.select_related("player__profile").order_by("seat")
    }
    viewer_id = getattr(viewer, "pk", None)
    seat = next((number for number, row in rows.items() if row.player_id == viewer_id), None)
    if seat is None and not all_cards:
        raise HandNotFound(hand_id)
    events = [
        _visible(payload, seat, all_cards)
        for payload in HandEvent.objects.filter(hand=hand)
        .order_by("seq")
        .values_list("payload", flat=True)
    ]
    shown = {e["seat"]: e["cards"] for e in events if e["type"] == "cards_shown"}
    holes: dict[int, list[str]] = {}
    for event in events:
        if event["type"] == "hole_cards_dealt":
            holes = {number: cards for number, cards in event["hole_cards"] if cards}
    result = hand.result or {}
    by_seat = {entry["seat"]: entry for entry in result.get("seats", [])}
    started = next((e for e in events if e["type"] == "hand_started"), {})
    starting = dict(started.get("seats", []))
    table = hand.table
    names = {number: player_json(row.player)["display_name"] for number, row in rows.items()}
    pots = [
        {
            **pot,
            "high": [{**share, "player": names.get(share["seat"])} for share in pot["high"]],
            "low": [{**share, "player": names.get(share["seat"])} for share in pot["low"]],
        }
        for pot in result.get("pots", [])
    ]
    # The hand's own stakes (a Sit & Go's table changes them level by level).
    stake_names = ("small_blind", "big_blind", "small_bet", "big_bet", "ante")
    stakes = {key: started.get(key) for key in stake_names}
    return {
        "id": hand.pk,
        "table": {**table_json(table), **{k: v for k, v in stakes.items() if v is not None}}
        if table.is_tournament
        else table_json(table),
        # A Sit & Go's hand: its tournament, buy-in and level (tournaments.selectors); None
        # at a cash table. Its amounts are tournament chips, not cents.
        # Who finished the Sit & Go in this hand: `finishes`, by seat, place and prize (cents).
        "tournament": _with_seats(
            hand_tournament(table_id=table.pk, stakes=stakes, hand_id=hand.pk), rows
        )
        if table.is_tournament
        else None,
        "game": table.game,
        "game_label": table.get_game_display(),
        "structure": table.structure,
        "structure_label": table.get_structure_display(),
        "status": hand.status,
        "cancel_reason": cancel_message(
            code=hand.incidents.values_list("code", flat=True).first(), reason=hand.cancel_reason
        )
        if hand.status == Hand.Status.CANCELLED
        else "",
        "started_at": hand.started_at.isoformat(),
        "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
        "button": started.get("button"),
        "you": seat,
        "seats": [
            {
                "seat": number,
                "player": names[number],
                "you": number == seat,
                "starting_stack": starting.get(number),
                "final_stack": by_seat.get(number, {}).get("final_stack"),
                "net": row.net,
                "cards": shown.get(number) or holes.get(number),
                "shown": number in shown,
            }
            for number, row in rows.items()
        ],
        "board": result.get("board", []),
        # Run twice: both boards (the first is `board`); absent for a board dealt once.
        **({"boards": result["boards"]} if result.get("runs") == 2 else {}),
        "pots": pots,
        "rake": result.get("rake", 0),
        "showdown": [
            {key: value for key, value in entry.items() if entry.get("shown") or all_cards}
            | {"seat": entry["seat"], "shown": entry.get("shown", False)}
            for entry in result.get("showdown", [])
        ],
        "steps": _replay(events),
    }
