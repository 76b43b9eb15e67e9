"""Run it twice at a live table (docs/rules.md "Run it twice"): the table setting, the
asking, the answers and the clock, through the table's services."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.utils import timezone

from cashier.models import Entry
from fairness.selectors import hand_check
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.selectors import table_state_for
from poker.services.timers import hand_turn_timeout
from tests.factories import (
    act_for_the_player_to_act,
    deal_hand,
    heads_up_asked_to_run_twice,
    make_seated_player,
    make_table,
)

pytestmark = pytest.mark.django_db


def _answer(table, player, agree):
    services.table_runs_answer(table=table, player=player, agree=agree)


def test_only_a_pot_limit_table_may_run_it_twice():
    table = make_table(structure=Table.Structure.LIMIT, small_blind=None, big_blind=None,
                       small_bet=100, big_bet=200)  # fmt: skip
    table.run_it_twice = True
    with pytest.raises(ValidationError) as error:
        table.full_clean()
    assert "run_it_twice" in error.value.message_dict
    pot_limit = make_table(run_it_twice=True)
    pot_limit.full_clean()


def test_all_agreeing_runs_the_board_twice_and_settles_once():
    table, players, hand = heads_up_asked_to_run_twice()
    assert hand.deadline is not None
    assert hand.deadline - timezone.now() <= timedelta(seconds=services.RUNS_ANSWER_SECONDS)
    _answer(table, players[1], True)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RUNNING
    assert EngineHand.from_dict(hand.state).runs_agreed == [1]  # the engine keeps the answer
    with pytest.raises(services.TableError) as error:
        _answer(table, players[1], True)
    assert error.value.code == "already_answered"
    _answer(table, players[2], True)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    assert hand.result["runs"] == 2 and len(hand.result["boards"]) == 2
    assert sum(entry["net"] for entry in hand.result["seats"]) + hand.result["rake"] == 0
    assert Entry.objects.filter(hand_id=hand.pk, reason="hand_settlement").count() == 1
    # verify_hand's check covers both runs: 8 hole cards, then 8 cards a run.
    check = hand_check(hand_id=hand.pk, viewer=players[1])
    assert check.verification.ok, check.verification
    assert sorted(check.dealt) == list(range(24))
    # The stored log holds both answers: replaying it makes the same decision.
    engine = EngineHand.from_dict(hand.state)
    answers = [e for e in engine.events if e["type"] == "runs_answered"]
    assert answers == [
        {"type": "runs_answered", "seat": 1, "agree": True},
        {"type": "runs_answered", "seat": 2, "agree": True},
    ]
    stored = Hand.objects.with_deck().get(pk=hand.pk)
    rebuilt = EngineHand.rebuild(engine.setup_without_deck, stored.deck, engine.events)
    assert rebuilt.snapshot() == engine.snapshot()
    # verify_hand fails a hand whose second board is not the deck's (here: its river swapped
    # for the next card, the first one not dealt).
    out = StringIO()
    call_command("verify_hand", hand.pk, stdout=out)
    assert "The deal verifies." in out.getvalue()
    state = dict(hand.state)
    state["second_board"] = [*state["second_board"][:4], stored.deck[24]]
    Hand.objects.filter(pk=hand.pk).update(state=state)
    with pytest.raises(CommandError):
        call_command("verify_hand", hand.pk, stdout=StringIO())


def test_who_won_each_run_is_public_once_the_hand_is_over_and_not_before():
    """The STATE everyone sees (a spectator's) carries each run's shares and hands only in the
    ended hand's result: while the players are asked there is no result, no second board, and
    no hole card but the player's own."""
    table, players, hand = heads_up_asked_to_run_twice()
    asked = table_state_for(table=table, player=None)
    assert asked["hand"]["result"] is None and "boards" not in (asked["last_result"] or {})
    assert all(seat["cards"] is None for seat in asked["hand"]["seats"])
    _answer(table, players[1], True)
    _answer(table, players[2], True)
    last = table_state_for(table=table, player=None)["last_result"]
    hand.refresh_from_db()
    assert last["boards"] == hand.result["boards"]
    for pot in last["pots"]:
        assert len(pot["runs"]) == 2
        assert sum(run["amount"] for run in pot["runs"]) == pot["amount"] - pot["rake"]
        for run in pot["runs"]:
            won = sum(share["amount"] for share in run["high"] + run["low"])
            assert won == run["amount"]
    # Everyone still in showed (the board was run out with nobody left to bet), each hand read
    # on both boards.
    assert all(entry["shown"] and len(entry["runs"]) == 2 for entry in last["showdown"])


def test_one_no_runs_it_once_at_once():
    table, players, hand = heads_up_asked_to_run_twice()
    _answer(table, players[2], False)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    assert "runs" not in hand.result
    events = EngineHand.from_dict(hand.state).events
    assert {"type": "runs_answered", "seat": 2, "agree": False} in events
    assert {"type": "runs_chosen", "runs": 1} in events


def test_bad_answers_change_nothing():
    table, players, hand = heads_up_asked_to_run_twice()
    outsider = make_seated_player(table, "cy", 4)
    for player, agree, code in (
        (players[1], "yes", "bad_field"),
        (outsider, True, "not_asked"),
    ):
        with pytest.raises(services.TableError) as error:
            _answer(table, player, agree)
        assert error.value.code == code
    hand.refresh_from_db()
    engine = EngineHand.from_dict(hand.state)
    assert engine.runs_agreed == [] and engine.deciding_runs
    assert hand.status == Hand.Status.RUNNING


def test_the_clock_runs_it_once():
    table, players, hand = heads_up_asked_to_run_twice()
    _answer(table, players[1], True)
    hand.refresh_from_db()
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert hand_turn_timeout(hand_id=hand.pk, turn=hand.turn) == "runs_once"
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED and "runs" not in hand.result


def test_a_disconnected_player_means_once_without_asking():
    table = make_table(run_it_twice=True)
    players = {
        n: make_seated_player(table, name, n, buy_in=5000) for n, name in ((1, "ann"), (2, "ben"))
    }
    Seat.objects.filter(table=table, number=1).update(connected=True)
    hand = deal_hand(table)
    for _ in range(10):
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            break
        legal = EngineHand.from_dict(hand.state).legal_actions()
        if legal.raise_kind:
            act_for_the_player_to_act(hand, players, legal.raise_kind, legal.max_to)
        else:
            act_for_the_player_to_act(hand, players, "call")
    assert hand.status == Hand.Status.FINISHED and "runs" not in hand.result
