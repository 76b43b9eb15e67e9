"""Hand histories in PHH, the plain-text (TOML) format of the pokerkit project.

    python -m poker.engine.phh replay FILE.phh

plays a PHH file through our engine and prints each seat's finishing stack as JSON
({"seat number": stack}); it exits with status 1 if the file's own `finishing_stacks`
disagree. `dumps(hand)` writes any finished hand as PHH, `finishing_stacks` included.

Variant codes: PHH's own `PO` (pot-limit Omaha high) and `FO/8` (fixed-limit Omaha hi/lo 8 or
better); PHH has none for the other two of our games, so we use `FO` (fixed-limit Omaha high)
and `PO/8` (pot-limit Omaha hi/lo 8 or better), following PHH's pattern (structure letter,
game letter, "/8" for eight-or-better). pokerkit can replay `PO` and `FO/8` files only.

Players p1..pN are in PHH's order: clockwise from the first seat left of the button, the
button last (heads-up that makes p1 the big blind and p2 the button, which posts the small
blind; PHH then writes `blinds_or_straddles` as [small, big], as pokerkit expects). Amounts are
integer cents. Burn cards are not written (PHH has no place for them). Showdown lines
(`pN sm CARDS` shows, `pN sm` mucks) come where pokerkit expects them: after the river action,
or, when the players are all-in before the river, as soon as the betting ends.

Fields of ours, which PHH readers ignore (a leading underscore marks a user-defined field):
`_button`, `_small_blind_seat`, `_big_blind_seat`, `_extra_big_blind_seats` (so our replay
does not have to guess the blinds) and `_rake` (the rake taken, which our replay takes again,
main pot first; pokerkit replays ignore it, so a raked hand replays in pokerkit to stacks that
differ by exactly the rake).

This module must not import pokerkit (a test-only dependency); it reads with `tomllib`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path
from typing import Any

from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand

__all__ = [
    "VARIANTS",
    "PhhError",
    "dumps",
    "hand_from_phh",
    "loads",
    "main",
    "recorded_rake_schedule",
    "replay",
]

# PHH variant code -> (game, structure), and back.
VARIANTS = {
    "PO": ("omaha", "pot-limit"),
    "FO/8": ("omaha8", "limit"),
    "FO": ("omaha", "limit"),
    "PO/8": ("omaha8", "pot-limit"),
}
_CODES = {games: code for code, games in VARIANTS.items()}


class PhhError(ValueError):
    """A PHH file our engine cannot play (unknown variant, missing cards, illegal action)."""


# ---------------------------------------------------------------------------- writing


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string uses the same escapes
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {value!r} as PHH")


def _blinds_in_phh_order(hand: Hand) -> list[int]:
    posted = [0] * len(hand.seats)
    index = {seat: i for i, seat in enumerate(hand.seats)}
    if hand.small_blind_seat is not None:
        posted[index[hand.small_blind_seat]] = hand.small_blind
    posted[index[hand.big_blind_seat]] = hand.big_blind
    for seat in hand.extra_big_blind_seats:
        posted[index[seat]] = hand.big_blind
    if len(posted) == 2:  # PHH heads-up: [small, big] while p1 (left of the button) posts big
        posted.reverse()
    return posted


def _actions(hand: Hand) -> list[str]:
    player = {seat: f"p{i + 1}" for i, seat in enumerate(hand.seats)}
    lines: list[str] = []
    showdown: list[str] = []
    for event in hand.events:
        if event["type"] == "hole_cards_dealt":
            for seat, cards in event["hole_cards"]:
                lines.append(f"d dh {player[seat]} {''.join(cards)}")
        elif event["type"] == "street_dealt" and event.get("run") == 2:
            continue  # PHH deals one board: the second run is `_second_board` (dumps)
        elif event["type"] == "street_dealt":
            lines.append(f"d db {''.join(event['cards'])}")
        elif event["type"] == "action":
            action = event["action"]
            if action == "fold":
                move = "f"
            elif action in ("check", "call"):
                move = "cc"
            else:
                move = f"cbr {event['to']}"
            lines.append(f"{player[event['seat']]} {move}")
        elif event["type"] == "cards_shown":
            showdown.append(f"{player[event['seat']]} sm {''.join(event['cards'])}")
        elif event["type"] == "cards_mucked":
            showdown.append(f"{player[event['seat']]} sm")
    if showdown:
        # pokerkit shows down as soon as betting is over: after the last player action (or
        # after the hole cards when nobody could act), before any board run out.
        last_action = max(
            (k for k, line in enumerate(lines) if not line.startswith("d ")),
            default=max(k for k, line in enumerate(lines) if line.startswith("d dh")),
        )
        lines[last_action + 1 : last_action + 1] = showdown
    return lines


def dumps(hand: Hand, *, hand_number: int | None = None) -> str:
    """A finished hand as PHH text."""
    if hand.result is None:
        raise ValueError("only a finished hand can be written as PHH")
    code = _CODES[(hand.game, hand.structure)]
    n = len(hand.seats)
    fields: list[tuple[str, Any]] = [
        ("variant", code),
        ("antes", [hand.ante] * n),
        ("blinds_or_straddles", _blinds_in_phh_order(hand)),
    ]
    if hand.structure == "limit":
        fields += [("small_bet", hand.small_bet), ("big_bet", hand.big_bet)]
    else:
        fields.append(("min_bet", hand.big_blind))
    fields += [
        ("starting_stacks", list(hand.starting_stacks)),
        ("actions", _actions(hand)),
        ("seats", list(hand.seats)),
    ]
    if hand_number is not None:
        fields.append(("hand", hand_number))
    fields += [
        ("finishing_stacks", [seat["final_stack"] for seat in hand.result["seats"]]),
        ("currency", "USD"),
        ("_button", hand.button),
    ]
    if hand.small_blind_seat is not None:
        fields.append(("_small_blind_seat", hand.small_blind_seat))
    fields += [
        ("_big_blind_seat", hand.big_blind_seat),
        ("_extra_big_blind_seats", list(hand.extra_big_blind_seats)),
        ("_rake", hand.result["rake"]),
    ]
    if hand.runs == 2:  # PHH has no second board: user-defined fields (docs/rules.md)
        fields += [("_runs", 2), ("_second_board", list(hand.second_board))]
    lines = []
    for key, value in fields:
        if key == "actions":
            lines.append("actions = [")
            lines.extend(f"  {_toml_value(action)}," for action in value)
            lines.append("]")
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- reading


def loads(text: str) -> dict[str, Any]:
    """Parse PHH text into its fields (amounts must be whole numbers of cents)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PhhError(f"not a PHH (TOML) file: {error}") from error
    for name in ("variant", "blinds_or_straddles", "starting_stacks", "actions"):
        if name not in data:
            raise PhhError(f"the PHH file has no {name!r}")
    return data


def _split_cards(text: str) -> list[str]:
    if len(text) % 2:
        raise PhhError(f"cannot read cards {text!r}")
    cards = [text[k : k + 2] for k in range(0, len(text), 2)]
    if any("?" in card for card in cards):
        raise PhhError("the file hides some cards ('??'); our engine needs every card dealt")
    return cards


def _player_index(label: str, count: int) -> int:
    if not label.startswith("p") or not label[1:].isdigit() or not 1 <= int(label[1:]) <= count:
        raise PhhError(f"{label!r} is not a player of this hand")
    return int(label[1:]) - 1


def hand_from_phh(data: dict[str, Any]) -> tuple[dict[str, Any], list[list[str]]]:
    """The `Hand.start` arguments a PHH describes, and its player actions as words.

    The deck is rebuilt from the cards the file shows: hole cards one at a time from p1,
    then burn, flop, burn, turn, burn, river; burns and undealt cards are the unused cards
    in a fixed order (they never matter to the play).
    """
    variant = data["variant"]
    if variant not in VARIANTS:
        raise PhhError(f"variant {variant!r} is not one of ours ({', '.join(VARIANTS)})")
    game, structure = VARIANTS[variant]
    seats, stacks, blinds = _phh_seats(data)
    big_blind = max(blinds)
    big_blind_seat, small_blind_seat, extra = _phh_blind_seats(data, seats, blinds)
    seat_index = {seat: i for i, seat in enumerate(seats)}
    small_blind = blinds[seat_index[small_blind_seat]] if small_blind_seat in seat_index else 0
    hole, board, moves = _phh_cards_and_moves(data["actions"], len(seats))

    setup: dict[str, Any] = {
        "game": game,
        "structure": structure,
        "seats": [[seat, stack] for seat, stack in zip(seats, stacks, strict=True)],
        "button": data.get("_button", seats[-1]),
        "small_blind_seat": small_blind_seat,
        "big_blind_seat": big_blind_seat,
        "extra_big_blind_seats": extra,
        "deck": _phh_deck(hole, board),
        "small_blind": small_blind,
        "big_blind": big_blind,
    }
    antes = data.get("antes", [0] * len(seats))
    if not isinstance(antes, list) or len(set(antes)) > 1 or len(antes) != len(seats):
        raise PhhError("'antes' must give one and the same ante for every player")
    if antes and antes[0]:
        if type(antes[0]) is not int or antes[0] < 0:
            raise PhhError("the ante must be a whole number of cents")
        setup["ante"] = antes[0]
    if structure == "limit":
        setup["small_bet"] = data.get("small_bet")
        setup["big_bet"] = data.get("big_bet")
    rake = data.get("_rake", 0)
    if type(rake) is not int or rake < 0:
        raise PhhError("'_rake' must be a whole number of cents")
    if rake:
        setup["rake"] = recorded_rake_schedule(rake)
    return setup, moves


def _phh_seats(data: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """(seat numbers, starting stacks, blinds posted), one of each per player from p1, the
    blinds in our order (PHH lists heads-up blinds as [small, big] while p1 posts the big)."""
    stacks = data["starting_stacks"]
    n = len(stacks)
    seats = data.get("seats") or list(range(1, n + 1))
    if len(seats) != n:
        raise PhhError("'seats' and 'starting_stacks' differ in length")
    blinds = list(data["blinds_or_straddles"])
    if len(blinds) != n:
        raise PhhError("'blinds_or_straddles' must give one amount per player")
    if n == 2:
        blinds.reverse()
    if any(type(amount) is not int for amount in [*blinds, *stacks]):
        raise PhhError("blinds and stacks must be whole numbers of cents")
    return seats, stacks, blinds


def _phh_blind_seats(
    data: dict[str, Any], seats: list[Any], blinds: list[int]
) -> tuple[Any, Any, list[Any]]:
    """(big blind seat, small blind seat or None, extra big blind seats): as our own files
    record them, else read from the blinds (the first full blind is the big blind, later full
    ones are extra, one below it is the small blind)."""
    if "_big_blind_seat" in data:
        return (
            data["_big_blind_seat"],
            data.get("_small_blind_seat"),
            list(data.get("_extra_big_blind_seats", [])),
        )
    big_blind = max(blinds)
    big_index = blinds.index(big_blind)
    small = [i for i, amount in enumerate(blinds) if 0 < amount < big_blind]
    extra = [seats[i] for i, amount in enumerate(blinds) if amount == big_blind and i != big_index]
    return seats[big_index], seats[small[0]] if small else None, extra


def _phh_cards_and_moves(
    actions: list[str], players: int
) -> tuple[list[list[str]], list[str], list[list[str]]]:
    """(hole cards per player, board, player moves as words) from a PHH's actions; show
    and muck lines are skipped, as our engine decides who shows."""
    hole: list[list[str]] = [[] for _ in range(players)]
    board: list[str] = []
    moves: list[list[str]] = []
    for raw in actions:
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words[:2] == ["d", "dh"] and len(words) == 4:
            hole[_player_index(words[2], players)].extend(_split_cards(words[3]))
        elif words[:2] == ["d", "db"] and len(words) == 3:
            board.extend(_split_cards(words[2]))
        elif len(words) >= 2 and words[1] == "sm":
            continue
        elif len(words) >= 2 and words[1] in ("f", "cc", "cbr"):
            _player_index(words[0], players)
            moves.append(words)
        else:
            raise PhhError(f"cannot play the action {raw!r} in Omaha")
    if any(len(cards) != 4 for cards in hole):
        raise PhhError("every player needs exactly four hole cards ('d dh')")
    if len(board) > 5:
        raise PhhError("more than five board cards")
    return hole, board, moves


def _phh_deck(hole: list[list[str]], board: list[str]) -> list[str]:
    """The deck that deals these cards: hole cards one at a time from p1, then burn and flop,
    burn and turn, burn and river, the burns and the rest being the unused cards in order."""
    shown = [card for cards in hole for card in cards] + board
    if len(set(shown)) != len(shown) or any(card not in FULL_DECK for card in shown):
        raise PhhError("the file shows a card that is not a card, or one card twice")
    spare = iter(card for card in FULL_DECK if card not in set(shown))
    n = len(hole)
    deck = [hole[k % n][k // n] for k in range(4 * n)]
    for street_cards in (board[:3], board[3:4], board[4:5]):
        deck.append(next(spare))  # the burn
        deck.extend(street_cards)
    deck.extend(spare)
    return deck[:52]


def recorded_rake_schedule(rake: int) -> dict[str, Any]:
    """A schedule that takes exactly `rake` from any pot, for replaying a raked hand.

    The file records the rake taken, not the table's schedule (staff data, which may have
    changed since); taking that amount again, main pot first, rebuilds the same awards.
    """
    band = {"players_from": 2, "players_to": 10, "steps": [[1, rake]]}
    return {"name": "recorded rake", "tiers": [{"big_blind_from": 0, "bands": [band]}]}


def replay(text: str) -> Hand:
    """Play a PHH hand through our engine (raises PhhError if the engine refuses it)."""
    from poker.engine.hand import IllegalAction, InvalidSetup

    setup, moves = hand_from_phh(loads(text))
    try:
        hand = Hand.start(**setup)
    except InvalidSetup as error:
        raise PhhError(f"cannot deal this hand: {error.reason}") from error
    for words in moves:
        legal = hand.legal_actions()
        if legal is None:
            raise PhhError(f"the hand is over before {' '.join(words)!r}")
        seat = hand.seats[int(words[0][1:]) - 1]
        try:
            if words[1] == "f":
                hand.act(seat, "fold")
            elif words[1] == "cc":
                hand.act(seat, "check" if legal.can_check else "call")
            else:
                if len(words) != 3 or not words[2].isdigit():
                    raise PhhError(f"{' '.join(words)!r}: amounts are whole numbers of cents")
                hand.act(seat, legal.raise_kind or "raise", int(words[2]))
        except IllegalAction as error:
            raise PhhError(f"{' '.join(words)!r}: {error.reason}") from error
    if hand.result is None:
        raise PhhError("the file ends before the hand does")
    return hand


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m poker.engine.phh")
    commands = parser.add_subparsers(dest="command", required=True)
    replaying = commands.add_parser("replay", help="play a PHH file and print finishing stacks")
    replaying.add_argument("file", type=Path)
    options = parser.parse_args(argv)
    text = options.file.read_text()
    try:
        hand = replay(text)
    except PhhError as error:
        print(f"{options.file}: {error}", file=sys.stderr)
        return 2
    assert hand.result is not None
    stacks = {str(seat["seat"]): seat["final_stack"] for seat in hand.result["seats"]}
    print(json.dumps(stacks))
    recorded = loads(text).get("finishing_stacks")
    ours = [seat["final_stack"] for seat in hand.result["seats"]]
    if recorded is not None and list(recorded) != ours:
        print(f"{options.file}: the file says finishing_stacks = {recorded}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
