"""The hand as an append-only log: PostgreSQL refuses to change or delete a hand's events, and
the rows a hand leaves (events, players) describe it."""

import itertools
from datetime import timedelta
from random import Random

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from cashier.selectors import table_stack_balance
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.engine.simulate import random_decision
from poker.models import Hand, HandEvent, HandPlayer, Seat
from tests.factories import (
    GAMES,
    deal_hand,
    default_rake_schedule_row,
    make_seated_player,
    make_table,
)

pytestmark = pytest.mark.django_db


def _running_hand() -> Hand:
    table = make_table()
    make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    hand = deal_hand(table)
    assert hand is not None and hand.status == Hand.Status.RUNNING
    return hand


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    [
        'UPDATE poker_handevent SET payload = \'{"type": "action"}\' WHERE hand_id = %s',
        "UPDATE poker_handevent SET seq = seq + 100 WHERE hand_id = %s",
        "DELETE FROM poker_handevent WHERE hand_id = %s",
    ],
)
def test_the_database_refuses_to_change_or_delete_a_hands_events(statement):
    hand = _running_hand()
    before = list(HandEvent.objects.filter(hand=hand).values_list("seq", "kind", "payload"))
    assert before, "the hand logged its first events"
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement, [hand.pk])
    after = list(HandEvent.objects.filter(hand=hand).values_list("seq", "kind", "payload"))
    assert after == before
    # Appending is what the log is for; a seq already taken is refused (unique).
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO poker_handevent (hand_id, seq, kind, payload, created_at) "
            "VALUES (%s, %s, 'note', '{}', now())",
            [hand.pk, len(before) + 50],
        )
    with (
        pytest.raises(IntegrityError),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO poker_handevent (hand_id, seq, kind, payload, created_at) "
            "VALUES (%s, 0, 'note', '{}', now())",
            [hand.pk],
        )


# ------------------------------------------------------------------ a random session


def _play_session(table, players: dict, rng: Random, hands: int) -> list[int]:
    """Deal `hands` hands and play them through the services with random legal actions, some
    turns left to time out (back-dated deadlines) and one hand cancelled; bust or timed-out
    players top up and sit in again. Returns the ids of the hands dealt."""
    dealt, seq = [], itertools.count(1)
    for number in range(hands):
        for player in players.values():
            seat = Seat.objects.get(table=table, player=player)
            if table_stack_balance(player=player, table=table) <= 0:
                services.table_top_up(
                    table=table, player=player, amount=table.max_buy_in,
                    idempotency_key=f"top-up-{player.pk}-{number}",
                )  # fmt: skip
            if seat.status == Seat.Status.SITTING_OUT:
                services.table_sit_in(table=table, player=player, post_big_blind=True)
        hand = deal_hand(table)
        assert hand is not None, "four funded players are dealt in"
        dealt.append(hand.pk)
        for _ in range(200):
            hand.refresh_from_db()
            if hand.status != Hand.Status.RUNNING:
                break
            if number == hands // 2 and hand.turn >= 2:
                assert services.hand_cancel(hand=hand, reason="A test cancels it.", code="test")
                continue
            engine = EngineHand.from_dict(hand.state)
            legal = engine.legal_actions()
            if rng.random() < 0.1:  # the player lets the clock run out
                Hand.objects.filter(pk=hand.pk).update(
                    deadline=timezone.now() - timedelta(seconds=1)
                )
                services.hand_turn_timeout(hand_id=hand.pk, turn=hand.turn)
                continue
            kind, to = random_decision(rng, legal.call, legal.min_to, legal.max_to)
            action = {"fold": "fold", "check_call": "call" if legal.call else "check"}.get(
                kind, legal.raise_kind
            )
            services.table_act(
                table=table,
                player=players[legal.seat],
                action=action,
                amount=to if kind == "raise" else None,
                turn=hand.turn,
                seq=next(seq),
            )
        else:
            raise AssertionError("the hand did not end")
    return dealt


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_hand_of_a_random_session_is_rebuilt_from_its_log_and_deck(game):
    structure = GAMES[game].get("structure", "pot-limit")
    table = make_table(**GAMES[game], rake_schedule=default_rake_schedule_row(structure))
    players = {n: make_seated_player(table, f"{game}-{n}", n) for n in (1, 2, 4, 5)}
    dealt = _play_session(table, players, Random(f"session-{game}"), hands=8)

    statuses = set()
    for hand in Hand.objects.with_deck().filter(pk__in=dealt):
        statuses.add(hand.status)
        log = list(hand.events.order_by("seq").values_list("seq", "kind", "payload"))
        assert [seq for seq, _, _ in log] == list(range(len(log)))
        assert all(kind == payload["type"] for _, kind, payload in log)
        rebuilt = EngineHand.rebuild(hand.setup, hand.deck, [payload for _, _, payload in log])
        assert rebuilt.snapshot() == hand.state, f"hand {hand.pk} ({hand.status})"
        assert rebuilt.is_over == (hand.status == Hand.Status.FINISHED)
        if hand.status == Hand.Status.FINISHED:
            assert rebuilt.result == hand.result
        # The deck is stored once: not in the setup, not in the snapshot.
        assert "deck" not in hand.setup and "deck" not in hand.state["setup"]
        assert hand.state["setup"] == hand.setup
        # Who was dealt in is rows, one per seat the engine dealt.
        assert hand.player_ids() == {seat: players[seat].pk for seat, _ in hand.setup["seats"]}
    assert statuses == {Hand.Status.FINISHED, Hand.Status.CANCELLED}


def test_the_deck_is_read_only_when_asked_for():
    hand = _running_hand()
    assert "deck" in Hand.objects.get(pk=hand.pk).get_deferred_fields()
    assert "deck" in Hand.objects.filter(table=hand.table).first().get_deferred_fields()
    assert "deck" in hand.table.hands.get().get_deferred_fields()
    with_deck = Hand.objects.with_deck().get(pk=hand.pk)
    assert "deck" not in with_deck.get_deferred_fields() and len(with_deck.deck) == 52


def test_each_players_last_seq_is_kept_on_their_row():
    hand = _running_hand()
    engine = EngineHand.from_dict(hand.state)
    to_act = hand.player_ids()[engine.to_act]
    player = get_user_model().objects.get(pk=to_act)
    services.table_act(table=hand.table, player=player, action="call", amount=None, turn=1, seq=7)
    rows = {row.player_id: row.last_seq for row in HandPlayer.objects.filter(hand=hand)}
    assert rows[to_act] == 7 and sorted(rows.values()) == [0, 7]
    with pytest.raises(services.TableError) as refused:
        services.table_act(
            table=hand.table, player=player, action="check", amount=None, turn=2, seq=7
        )
    assert refused.value.code == "duplicate_seq"
