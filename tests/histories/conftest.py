"""Hands played through the table services for the history tests: plain call-downs of each of
the four games, and aggressive hands with a short stack that make side pots."""

import json

import pytest

from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand
from tests.factories import (
    GAMES,
    call_down,
    deal_hand,
    default_rake_schedule_row,
    make_seated_player,
    make_table,
)
from tests.sweep import DECK


def play_hand(table, players: dict, *, aggressors: set[int], deck=None):
    """Play a hand to its end: seats in `aggressors` bet or raise the most they may whenever
    they may, the others call or check. Returns the finished hand row."""
    hand = deal_hand(table, deck)
    for _ in range(200):
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            return hand
        legal = EngineHand.from_dict(hand.state).legal_actions()
        if legal.seat in aggressors and legal.raise_kind:
            action, amount = legal.raise_kind, legal.max_to
        else:
            action, amount = ("call" if legal.call else "check"), None
        services.table_act(
            table=table, player=players[legal.seat], action=action, amount=amount,
            turn=hand.turn, seq=hand.turn,
        )  # fmt: skip
    raise AssertionError("the hand did not end")


def game_table(game: str):
    structure = GAMES[game].get("structure", "pot-limit")
    return make_table(
        **GAMES[game], rake_schedule=default_rake_schedule_row(structure),
        next_hand_delay_seconds=3600,
    )  # fmt: skip


@pytest.fixture(params=sorted(GAMES))
def played(request):
    """(game, table, players by seat, a hand called down to showdown, a hand with a short
    stack all in and two players betting on: side pots in pot limit)."""
    game = request.param
    table = game_table(game)
    players = {
        1: make_seated_player(table, "ann", 1, buy_in=table.min_buy_in),
        2: make_seated_player(table, "ben", 2),
        4: make_seated_player(table, "cy", 4),
    }
    calm = call_down(deal_hand(table, DECK), players)
    wild = play_hand(table, players, aggressors={1, 2})
    return game, table, players, calm, wild


def dumped(record) -> str:
    return json.dumps(record)
