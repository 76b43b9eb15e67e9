"""Table timers on real Celery workers (Redis broker, the test database), with short settings."""

import os
import signal
import time
import uuid
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from cashier.selectors import table_stack_balance, wallet_balance
from poker import services, timekeeper
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.tasks import sweep_tables, turn_timeout
from tests.factories import make_seated_player, make_table

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def wait_for(condition, *, timeout: float = 30, what: str = "", log=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    tail = log.read_text()[-3000:] if log is not None else ""
    raise AssertionError(f"timed out waiting for {what}\n{tail}")


def seated_table(**settings):
    settings.setdefault("next_hand_delay_seconds", 3600)  # one hand per test
    table = make_table(**settings)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    for player in players.values():
        services.table_connection_set(table=table, player=player, connected=True)
    return table, players


def deal(table) -> Hand:
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    return services.table_hand_start(table=table)


def back_date(hand: Hand, *, seconds: float, tell_timekeeper: bool = True) -> Hand:
    """Move the turn's clock `seconds` into the past (its start and its deadline), instead of
    waiting that long; the timekeeper hears of the new deadline as it would from a service."""
    hand.refresh_from_db()
    hand.action_started_at -= timedelta(seconds=seconds)
    hand.deadline -= timedelta(seconds=seconds)
    hand.save(update_fields=["action_started_at", "deadline"])
    if tell_timekeeper:
        timekeeper.deadlines_write([(hand.pk, hand.turn, hand.deadline)])
    return hand


def test_the_timer_folds_a_player_facing_a_bet_then_sits_them_out(celery_worker_process):
    table, players = seated_table(action_seconds=1)
    hand = deal(table)
    slow = EngineHand.from_dict(hand.state).to_act
    started = time.monotonic()

    hand = wait_for(
        lambda: Hand.objects.filter(pk=hand.pk, status=Hand.Status.FINISHED).first(),
        what="the timeout to fold",
        log=celery_worker_process.log_path,
    )
    assert time.monotonic() - started >= 0.9
    actions = [e for e in hand.state["events"] if e["type"] == "action"]
    assert actions == [{"type": "action", "seat": slow, "action": "fold"}]
    seat = Seat.objects.get(player=players[slow])
    assert seat.status == Seat.Status.SITTING_OUT
    assert table_stack_balance(player=players[slow], table=table) == 10_000 - 50


def test_the_timer_checks_when_it_can():
    """On the fake clock (the fold above is the real worker's): each turn's deadline is moved
    into the past and its timeout run here, as the worker's timekeeper runs it. The turns are
    30 s long, so the worker this process may have started never comes to them."""
    table, players = seated_table(action_seconds=30)
    hand = deal(table)
    first = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table, player=players[first], action="call", amount=None, turn=1, seq=1
    )
    big_blind = 3 - first
    hand = back_date(hand, seconds=31, tell_timekeeper=False)
    assert turn_timeout(hand.pk, hand.turn) == "check"
    hand.refresh_from_db()
    actions = [e for e in hand.state["events"] if e["type"] == "action"]
    assert actions[-1] == {"type": "action", "seat": big_blind, "action": "check"}
    assert Seat.objects.get(player=players[big_blind]).time_out_pending
    # The timers play the hand out (check, check, ...) and both end up sat out.
    for _street_turn in range(8):
        if hand.status != Hand.Status.RUNNING:
            break
        hand = back_date(hand, seconds=31, tell_timekeeper=False)
        assert turn_timeout(hand.pk, hand.turn) == "check"
        hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    for player in players.values():
        assert Seat.objects.get(player=player).status == Seat.Status.SITTING_OUT


def test_a_disconnected_player_gets_the_grace_before_the_timer_acts(celery_worker_process):
    table, players = seated_table(action_seconds=1, disconnect_grace_seconds=3)
    hand = deal(table)
    slow = EngineHand.from_dict(hand.state).to_act
    services.table_connection_set(table=table, player=players[slow], connected=False)
    # 2 s of the turn gone: past its 1 s, inside the grace. A timeout now finds the grace.
    back_date(hand, seconds=2)
    assert turn_timeout(hand.pk, hand.turn) == "not_yet"
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RUNNING and hand.turn == 1
    assert hand.deadline > timezone.now()
    # 2 s more: the grace is over too, and the worker's timekeeper plays the timeout.
    back_date(hand, seconds=2)
    wait_for(
        lambda: Hand.objects.filter(pk=hand.pk, status=Hand.Status.FINISHED).exists(),
        what="the timeout after the grace",
        log=celery_worker_process.log_path,
    )


def test_a_player_who_reconnects_in_the_grace_acts_normally(celery_worker_process):
    table, players = seated_table(action_seconds=1, disconnect_grace_seconds=4)
    hand = deal(table)
    slow = EngineHand.from_dict(hand.state).to_act
    services.table_connection_set(table=table, player=players[slow], connected=False)
    back_date(hand, seconds=1.5)  # past the turn's 1 s, inside the grace
    services.table_connection_set(table=table, player=players[slow], connected=True)
    services.table_act(table=table, player=players[slow], action="call", amount=None, turn=1, seq=1)
    hand.refresh_from_db()
    assert hand.turn == 2
    assert Seat.objects.get(player=players[slow]).time_out_pending is False


def test_the_sweep_on_a_worker_evicts_and_cashes_out(celery_worker_process):
    table, players = seated_table(sit_out_limit_seconds=1)
    services.table_sit_out(table=table, player=players[1])
    Seat.objects.filter(player=players[1]).update(sat_out_at=timezone.now() - timedelta(seconds=2))
    sweep_tables.delay()
    wait_for(
        lambda: not Seat.objects.filter(player=players[1]).exists(),
        what="the eviction",
        log=celery_worker_process.log_path,
    )
    assert wallet_balance(player=players[1]) == 100_000
    assert table_stack_balance(player=players[1], table=table) == 0


def test_a_worker_killed_mid_hand_loses_nothing_another_finishes_it(celery_worker_factory):
    """Worker A is killed with SIGKILL just after its timekeeper took the turn's deadline out of
    Redis, before the timeout ran; worker B (with beat and the sweep) takes the hand on from
    what the database says and finishes it."""
    queue = f"kill-test-{uuid.uuid4().hex[:8]}"
    env = {"POKER_SWEEP_SECONDS": "1"}
    with override_settings(CELERY_TASK_DEFAULT_QUEUE=queue):
        first = celery_worker_factory(queue=queue, name="doomed", env=env)
        table, players = seated_table(action_seconds=30)
        hand = deal(table)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        # The turn's time is up, and its deadline is gone from Redis as if A had popped it.
        back_date(hand, seconds=31, tell_timekeeper=False)
        key = timekeeper.deadlines_key(queue)
        assert timekeeper._redis().zrem(key, f"{hand.pk}:{hand.turn}") == 1
        hand.refresh_from_db()
        assert hand.status == Hand.Status.RUNNING and hand.turn == 1
        before = {n: table_stack_balance(player=p, table=table) for n, p in players.items()}

        second = celery_worker_factory(queue=queue, name="rescuer", beat=True, env=env)
        finished = wait_for(
            lambda: Hand.objects.filter(pk=hand.pk, status=Hand.Status.FINISHED).first(),
            timeout=40,
            what="worker B to finish the hand",
            log=second.log_path,
        )
    result = finished.state["result"]
    for entry in result["seats"]:
        player = players[entry["seat"]]
        assert (
            table_stack_balance(player=player, table=table) == before[entry["seat"]] + entry["net"]
        )
    assert sum(e["net"] for e in result["seats"]) + result["rake"] == 0


async def test_sockets_see_the_timeout_a_worker_played(celery_worker_process):
    """The worker's broadcast goes through Redis to the players' sockets."""
    from channels.db import database_sync_to_async

    from tests.factories import TableSocket

    table, players = await database_sync_to_async(seated_table)(action_seconds=1)
    sockets = {}
    for number, player in players.items():
        sockets[number] = await TableSocket.open(table.pk, player)
        await sockets[number].receive()
    hand = await database_sync_to_async(deal)(table)
    slow = EngineHand.from_dict(hand.state).to_act
    for socket in sockets.values():
        frame = await socket.until(
            lambda f: any(e["type"] == "timeout" for e in f.get("events", [])), timeout=20
        )
        timeout = next(e for e in frame["events"] if e["type"] == "timeout")
        assert timeout == {"type": "timeout", "seat": slow, "hand_id": hand.pk, "action": "fold"}
        state = await socket.until_state(lambda s: s["seats"][slow - 1]["status"] == "sitting_out")
        assert state["last_result"]["hand_id"] == hand.pk
        await socket.close()
