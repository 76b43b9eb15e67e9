"""Table timers on real Celery workers (Redis broker, the test database), with short settings:
one test per kind of timer on a worker (a turn, the next hand, a sitter-out's eviction), the
rest on the fake clock, calling the timeout task here as the worker would."""

import asyncio
import os
import signal
import time
import uuid
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from cashier.selectors import table_stack_balance, wallet_balance
from config.timeouts import timeout_fire
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.tasks import sweep_tables
from tests.factories import make_seated_player, make_table, priority_lists

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


def back_date(hand: Hand, *, seconds: float) -> Hand:
    """Move the turn's clock `seconds` into the past (its start and its deadline), instead of
    waiting that long. The turn's timer keeps its own time: one that comes early finds the
    deadline ahead and sets itself again for it."""
    hand.refresh_from_db()
    hand.action_started_at -= timedelta(seconds=seconds)
    hand.deadline -= timedelta(seconds=seconds)
    hand.save(update_fields=["action_started_at", "deadline"])
    return hand


def turn_timeout(hand: Hand) -> str:
    """The turn's timeout task, run here as a worker runs it when it is due."""
    return timeout_fire("poker.turn", hand.table_id, hand.pk, hand.turn, time.time())


def test_the_timer_folds_a_player_facing_a_bet_then_sits_them_out(celery_worker_process):
    table, players = seated_table(action_seconds=1)
    started = time.monotonic()  # before the deal, which sets the deadline a second after it
    hand = deal(table)
    slow = EngineHand.from_dict(hand.state).to_act

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
    into the past and its timeout run here, as a worker runs it. The turns are 30 s long, so
    the worker this process may have started never comes to them."""
    table, players = seated_table(action_seconds=30)
    hand = deal(table)
    first = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table, player=players[first], action="call", amount=None, turn=1, seq=1
    )
    big_blind = 3 - first
    hand = back_date(hand, seconds=31)
    assert turn_timeout(hand) == "check"
    hand.refresh_from_db()
    actions = [e for e in hand.state["events"] if e["type"] == "action"]
    assert actions[-1] == {"type": "action", "seat": big_blind, "action": "check"}
    assert Seat.objects.get(player=players[big_blind]).time_out_pending
    # The timers play the hand out (check, check, ...) and both end up sat out.
    for _street_turn in range(8):
        if hand.status != Hand.Status.RUNNING:
            break
        hand = back_date(hand, seconds=31)
        assert turn_timeout(hand) == "check"
        hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    for player in players.values():
        assert Seat.objects.get(player=player).status == Seat.Status.SITTING_OUT


def test_a_disconnected_player_gets_the_grace_before_the_timer_acts(celery_worker_process):
    # A grace of some seconds beyond the 2 s the test moves the clock: a busy machine's
    # seconds between two steps of the test must not use it up (with 3 s, one did).
    table, players = seated_table(action_seconds=1, disconnect_grace_seconds=8)
    hand = deal(table)
    slow = EngineHand.from_dict(hand.state).to_act
    services.table_connection_set(table=table, player=players[slow], connected=False)
    # 2 s of the turn gone: past its 1 s, inside the grace. A timeout now finds the grace.
    back_date(hand, seconds=2)
    assert turn_timeout(hand) == "not_yet"
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RUNNING and hand.turn == 1
    assert hand.deadline > timezone.now()
    # 8 s more: the grace is over too, and the turn's timer (set again for the deadline it
    # found, some seconds ahead) plays the timeout on the worker.
    back_date(hand, seconds=8)
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


def assert_evicted_and_cashed_out(player, table, worker) -> None:
    """The worker takes the player's seat away and their whole stack back to the wallet."""
    wait_for(
        lambda: not Seat.objects.filter(player=player).exists(),
        what="the eviction",
        log=worker.log_path,
    )
    assert wallet_balance(player=player) == 100_000
    assert table_stack_balance(player=player, table=table) == 0


def test_the_worker_evicts_a_player_sitting_out_past_the_limit(celery_worker_process):
    """The sitter-out's timer, set when they sat out, evicts and cashes them out (no beat)."""
    table, players = seated_table(sit_out_limit_seconds=1)
    services.table_sit_out(table=table, player=players[1])
    assert_evicted_and_cashed_out(players[1], table, celery_worker_process)


def test_the_worker_deals_the_next_hand_when_the_pause_is_over(celery_worker_process):
    table, players = seated_table()
    hand = deal(table)
    Table.objects.filter(pk=table.pk).update(next_hand_delay_seconds=1)  # from this hand on
    first = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table, player=players[first], action="fold", amount=None, turn=1, seq=1
    )
    ended = time.monotonic()
    wait_for(
        lambda: Hand.objects.filter(table=table).exclude(pk=hand.pk).exists(),
        what="the next hand",
        log=celery_worker_process.log_path,
    )
    assert time.monotonic() - ended >= 0.7  # not before the pause (less the start's slack)


def test_the_sweep_on_a_worker_evicts_and_cashes_out(celery_worker_process):
    """The backstop: a sitter-out whose timer is still far ahead (as if it were lost) is
    evicted by the sweep from what the database says."""
    table, players = seated_table(sit_out_limit_seconds=600)
    services.table_sit_out(table=table, player=players[1])
    Seat.objects.filter(player=players[1]).update(
        sat_out_at=timezone.now() - timedelta(seconds=601)
    )
    sweep_tables.delay()
    assert_evicted_and_cashed_out(players[1], table, celery_worker_process)


def test_a_worker_killed_mid_hand_loses_nothing_another_finishes_it(celery_worker_factory):
    """Worker A holds the turn's timeout (an eta task it took from the queue, not yet acked)
    and is killed with SIGKILL; the broker would hand it out again only after its visibility
    timeout (an hour). Worker B (with beat and the sweep) takes the hand on from what the
    database says and finishes it."""
    import redis

    queue = f"kill-test-{uuid.uuid4().hex[:8]}"
    env = {"POKER_SWEEP_SECONDS": "1"}
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    with override_settings(CELERY_TASK_DEFAULT_QUEUE=queue):
        first = celery_worker_factory(queue=queue, name="doomed", env=env)
        table, players = seated_table(action_seconds=30)
        hand = deal(table)
        lanes = priority_lists(queue)
        wait_for(
            lambda: sum(broker.llen(lane) for lane in lanes) == 0,
            what="worker A to take the turn's timer",
        )
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        back_date(hand, seconds=31)  # the turn's time is up; its timer went with A
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


async def test_a_process_serving_sockets_sends_timeouts_after_commit_and_stale_ones_do_nothing(
    celery_worker_process,
):
    """daphne's owner hands a change's timeout to its sender thread, behind the change's
    frames (config/after_commit.py), instead of sending it before its next command: the
    worker still gets every turn's timeout, and the one for a turn played in time does
    nothing (turn 1's is due half a second before turn 2's: had it acted, the big blind
    would have checked that much early)."""
    from asgiref.sync import sync_to_async

    from config import after_commit

    after_commit.socket_loop_remember(asyncio.get_running_loop())
    try:
        table, players = await sync_to_async(seated_table)(action_seconds=1)
        hand = await sync_to_async(deal)(table)
        first = EngineHand.from_dict(hand.state).to_act
        await asyncio.sleep(0.5)
        await sync_to_async(services.table_act)(
            table=table, player=players[first], action="call", amount=None, turn=1, seq=1
        )
        called = time.monotonic()
        await after_commit.sends_drained()
        hand = await sync_to_async(wait_for)(
            lambda: Hand.objects.filter(pk=hand.pk, turn__gte=3).first(),
            what="turn 2's timeout to check",
            log=celery_worker_process.log_path,
        )
        assert time.monotonic() - called >= 0.9
    finally:
        after_commit.socket_loop_remember(None)
    actions = [(e["seat"], e["action"]) for e in hand.state["events"] if e["type"] == "action"]
    assert actions[:2] == [(first, "call"), (3 - first, "check")]
