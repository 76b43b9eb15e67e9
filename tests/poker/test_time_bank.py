"""The time bank (docs/rules.md "Time bank"): extra seconds after the normal time, paid for by
the second, refilled a little every hand, and honoured by the turn timer."""

from datetime import timedelta

import pytest
from django.utils import timezone

from cashier.selectors import table_stack_balance, wallet_balance
from cashier.verify import ledger_verify
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.selectors import table_state_for
from tests.factories import act_for_the_player_to_act as act
from tests.factories import deal_hand, make_seated_player, make_table

pytestmark = pytest.mark.django_db


def _banked_table(**overrides) -> Table:
    fields = {"action_seconds": 30, "disconnect_grace_seconds": 20, "time_bank_seconds": 20}
    fields.update(overrides)
    return make_table(**fields)


def _two_players(table) -> dict:
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    for player in players.values():
        services.table_connection_set(table=table, player=player, connected=True)
    return players


def _to_act(hand: Hand) -> int:
    hand.refresh_from_db()
    return EngineHand.from_dict(hand.state).to_act


def _bank_of(player) -> int:
    return Seat.objects.get(player=player).time_bank


def _into_the_bank(hand: Hand, seconds: float) -> None:
    """As if the player to act had been thinking for `seconds` past their normal time."""
    hand.refresh_from_db()
    shift = hand.time_bank_from - timezone.now() + timedelta(seconds=seconds)
    Hand.objects.filter(pk=hand.pk).update(
        action_started_at=hand.action_started_at - shift,
        time_bank_from=hand.time_bank_from - shift,
        deadline=hand.deadline - shift,
    )


def test_the_room_s_timers_stay_and_the_bank_comes_after_them():
    assert (Table().action_seconds, Table().countdown_seconds) == (30, 20)
    assert Table().disconnect_grace_seconds == 20
    assert (Table().time_bank_seconds, Table().time_bank_refill_seconds) == (20, 1)
    table = _banked_table()
    players = _two_players(table)
    assert _bank_of(players[1]) == 20  # a new seat starts with a full bank
    hand = deal_hand(table)
    assert hand.time_bank_from - hand.action_started_at == timedelta(seconds=30)
    assert hand.deadline - hand.time_bank_from == timedelta(seconds=20)
    public = table_state_for(table=table, player=players[1])
    assert public["hand"]["time_bank_from"] == hand.time_bank_from.isoformat()
    assert public["hand"]["deadline"] == hand.deadline.isoformat()
    assert public["you"]["time_bank"] == 20


def test_acting_in_the_normal_time_costs_nothing_and_in_the_bank_whole_seconds():
    table = _banked_table()
    players = _two_players(table)
    hand = deal_hand(table)
    first = _to_act(hand)
    act(hand, players, "call")
    assert _bank_of(players[first]) == 20
    second = _to_act(hand)
    _into_the_bank(hand, 5.2)
    act(hand, players, "check")
    assert _bank_of(players[second]) == 14  # 5.2 s used: 6 whole seconds
    hand.refresh_from_db()
    # The next turn has the next player's own bank.
    assert hand.deadline - hand.time_bank_from == timedelta(
        seconds=_bank_of(players[_to_act(hand)])
    )


def test_the_timer_waits_for_the_bank_then_empties_it():
    table = _banked_table()
    players = _two_players(table)
    hand = deal_hand(table)
    slow = _to_act(hand)
    _into_the_bank(hand, 3)  # the normal time is over, the bank is running
    assert services.hand_turn_timeout(hand_id=hand.pk, turn=hand.turn) == "not_yet"
    assert _to_act(hand) == slow
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=0.1))
    assert services.hand_turn_timeout(hand_id=hand.pk, turn=hand.turn) == "fold"
    seat = Seat.objects.get(player=players[slow])
    assert seat.time_bank == 1  # emptied, then the hand's refill
    assert seat.status == Seat.Status.SITTING_OUT  # a timeout, as without a bank


def test_the_bank_refills_a_little_every_hand_up_to_full():
    table = _banked_table(time_bank_refill_seconds=2)
    players = _two_players(table)
    Seat.objects.filter(player=players[1]).update(time_bank=5)
    Seat.objects.filter(player=players[2]).update(time_bank=19)
    hand = deal_hand(table)
    act(hand, players, "fold")
    assert (_bank_of(players[1]), _bank_of(players[2])) == (7, 20)


def test_a_disconnected_player_gets_the_grace_then_the_bank():
    table = _banked_table()
    players = _two_players(table)
    hand = deal_hand(table)
    slow = _to_act(hand)
    services.table_connection_set(table=table, player=players[slow], connected=False)
    hand.refresh_from_db()
    assert hand.time_bank_from - hand.action_started_at == timedelta(seconds=50)
    assert hand.deadline - hand.action_started_at == timedelta(seconds=70)


def test_no_bank_no_bank_time():
    table = _banked_table(time_bank_seconds=0)
    players = _two_players(table)
    assert _bank_of(players[1]) == 0
    hand = deal_hand(table)
    assert hand.time_bank_from is None
    assert hand.deadline - hand.action_started_at == timedelta(seconds=30)


def test_leaving_at_a_stuck_turn_in_the_bank_ends_the_hand_and_cashes_out():
    """The probe's recovery case: no worker played the turn (its timer lost in a worker
    restart), so the player to act sits past their normal time and their whole bank, and
    leaves. Their leave folds them, which charges their bank and ends the heads-up hand, and
    the hand's end frees their seat: the charge must not then save the seat just deleted."""
    table = _banked_table()
    players = _two_players(table)
    hand = deal_hand(table)
    leaver = _to_act(hand)
    _into_the_bank(hand, 600)  # ten minutes over: the deadline long gone too
    stack = table_stack_balance(player=players[leaver], table=table)
    wallet = wallet_balance(player=players[leaver])

    services.table_leave(table=table, player=players[leaver])

    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    actions = [e for e in hand.state["events"] if e["type"] == "action"]
    assert actions == [{"type": "action", "seat": leaver, "action": "fold"}]
    assert not Seat.objects.filter(player=players[leaver]).exists()
    # Cashed out: their stack less the blind the fold gave up.
    net = next(entry["net"] for entry in hand.result["seats"] if entry["seat"] == leaver)
    assert net < 0
    assert wallet_balance(player=players[leaver]) == wallet + stack + net
    assert ledger_verify().ok
