"""Table sockets for the consumer tests: a table with players seated on their own sockets, a
hand played out from what each socket showed, and the scan that no frame leaks a card."""

import json

from channels.db import database_sync_to_async as sync_to_async

from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Table
from tests.factories import (
    TableSocket,
    default_rake_schedule_row,
    make_seated_player,
    make_table,
)


@sync_to_async
def new_table(**overrides):
    structure = overrides.get("structure", Table.Structure.POT_LIMIT)
    overrides.setdefault("rake_schedule", default_rake_schedule_row(structure))
    # Hands are dealt by the test (a worker of the session must not deal the next one).
    overrides.setdefault("next_hand_delay_seconds", 3600)
    return make_table(**overrides)


@sync_to_async
def seat_player(table, name, number, buy_in=None):
    return make_seated_player(table, name, number, buy_in=buy_in)


@sync_to_async
def start_hand(table) -> Hand | None:
    """Deal the next hand now (what the next hand's timer does once the delay is over)."""
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    services.table_hand_start(table=table)
    return Hand.objects.filter(table=table, status=Hand.Status.RUNNING).first()


async def play_hand(hand_id, sockets_by_seat, choose) -> Hand:
    """Drive a hand to its end: each player acts from what their own socket showed them."""
    for _ in range(200):
        row = await load_hand(hand_id)
        if row.status != Hand.Status.RUNNING:
            return row
        seat = EngineHand.from_dict(row.state).to_act
        socket = sockets_by_seat[seat]
        turn = row.turn
        state = await socket.until_state(lambda s, turn=turn: my_turn(s, hand_id, turn))
        hand = state["hand"]
        action, amount = choose(hand["legal_actions"], hand)
        await socket.act(action, amount, turn=turn)
        await socket.until(lambda f, turn=turn: moved_on(f, hand_id, turn))
    raise AssertionError("the hand did not end")


def check_or_call(legal, hand):
    return ("call", None) if legal["call"] else ("check", None)


async def open_players(table, players):
    sockets = {}
    for number, player in players.items():
        socket = await TableSocket.open(table.pk, player)
        assert socket.connected
        snapshot = await socket.receive()
        assert snapshot["type"] == "snapshot"
        assert snapshot["state"]["you"]["seat"] == number
        sockets[number] = socket
    return sockets


@sync_to_async
def hands_by_id(table) -> dict[int, Hand]:
    return {hand.pk: hand for hand in Hand.objects.with_deck().filter(table=table)}


def assert_no_leaks(frames, my_seat_by_hand, hands: dict[int, Hand]) -> int:
    """No frame carries the deck, a burn card, another's unshown hole cards, or another's
    legal actions. Returns how many frames were checked."""
    checked = 0
    for frame in frames:
        checked += 1
        assert "deck" not in set(_keys(frame)) and "burn" not in set(_keys(frame)), frame
        assert "burns" not in set(_keys(frame)), frame
        # A snapshot's STATE; the parts of the STATE an update or a private frame carries.
        state = frame.get("state") or frame
        last = state.get("last_result") or {}
        for entry in last.get("showdown", []):
            assert entry["shown"] or "cards" not in entry, frame
        hand_ids = {e["hand_id"] for e in frame.get("events", []) if "hand_id" in e}
        if state.get("hand"):
            hand_ids.add(state["hand"]["id"])
            legal = state["hand"]["legal_actions"]
            if frame["type"] == "private":  # one's own part: one's own seat only
                assert legal is None or legal["seat"] == state["hand"]["seat"], frame
            elif frame["type"] == "update":  # the public part: nobody's legal actions
                assert legal is None and state["hand"]["you"] is None, frame
            elif legal is not None:
                assert legal["seat"] == state["hand"]["you"] == state["hand"]["to_act"]
        assert len(hand_ids) <= 1, frame
        if not hand_ids:
            continue
        hand = hands[hand_ids.pop()]
        mine = my_seat_by_hand(hand)
        shown = (
            {e["seat"] for e in hand.state["result"]["showdown"] if e["shown"]}
            if hand.state.get("result")
            else set()
        )
        hidden = {
            card
            for seat, cards in zip(
                hand.state["setup"]["seats"], hand.state["hole_cards"], strict=True
            )
            if seat[0] != mine and seat[0] not in shown
            for card in cards
        }
        hidden |= set(hand.state["burns"]) | set(hand.deck[hand.state["next_card"] :])
        # The last result is an earlier hand's (its shown cards are checked above).
        scanned = {k: v for k, v in frame.items() if k not in ("state", "last_result")}
        scanned["events"] = [e for e in frame.get("events", []) if e["type"] != "button_drawn"]
        scanned["hand"] = state.get("hand")
        scanned["seats"] = state.get("seats")
        text = json.dumps(scanned)
        leaked = [card for card in hidden if f'"{card}"' in text]
        assert not leaked, (leaked, frame)
    return checked


@sync_to_async
def load_hand(hand_id) -> Hand:
    return Hand.objects.get(pk=hand_id)


def my_turn(state, hand_id, turn) -> bool:
    hand = (state or {}).get("hand")
    return bool(hand and hand["id"] == hand_id and hand["turn"] == turn and hand["legal_actions"])


def moved_on(frame, hand_id, turn) -> bool:
    if frame["type"] == "error":
        raise AssertionError(f"the action was refused: {frame}")
    hand = frame.get("state", {}).get("hand")
    return hand is None or hand["id"] != hand_id or hand["turn"] > turn


def _keys(value):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)
