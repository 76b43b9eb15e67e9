"""The timekeeper's deadlines (poker/timekeeper.py) on the real Redis: a turn played in time
leaves nothing behind, due turns are taken once however many workers pop, and the embedded
form reads due turns from the database."""

import json
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from poker import timekeeper
from poker.models import Hand
from tests.factories import deal_hand, make_seated_player, make_table


@pytest.fixture
def queue():
    """A queue (and so a deadline set) of this test's own, removed afterwards."""
    if not timekeeper._uses_redis():
        pytest.skip("the deadline set lives in the broker's Redis (REDIS_URL)")
    name = f"timekeeper-test-{uuid.uuid4().hex[:8]}"
    with override_settings(CELERY_TASK_DEFAULT_QUEUE=name):
        yield name
    timekeeper._redis().delete(timekeeper.deadlines_key(name), name)


def at(seconds_from_now: float) -> datetime:
    return datetime.now(UTC) + timedelta(seconds=seconds_from_now)


def entries(queue: str) -> dict[str, float]:
    raw = timekeeper._redis().zrange(timekeeper.deadlines_key(queue), 0, -1, withscores=True)
    return {member.decode(): score for member, score in raw}


def test_a_turn_replaces_the_turn_before_so_an_action_in_time_leaves_nothing(queue):
    timekeeper.deadlines_write([(7, 1, at(5))])
    timekeeper.deadlines_write([(7, 2, at(5))])
    timekeeper.deadlines_write([(7, 3, at(5)), (8, 1, at(5))])
    assert set(entries(queue)) == {"7:3", "8:1"}
    timekeeper.deadline_clear(7, 3)  # the hand ended at its third turn
    assert set(entries(queue)) == {"8:1"}


def test_only_due_turns_are_popped_and_each_once(queue):
    timekeeper.deadlines_write([(1, 4, at(-1)), (2, 1, at(60)), (3, 2, at(-0.1))])
    assert sorted(timekeeper.due_pop(now=time.time(), queue=queue)) == [(1, 4), (3, 2)]
    assert timekeeper.due_pop(now=time.time(), queue=queue) == []
    assert set(entries(queue)) == {"2:1"}
    # A deadline written again later (a disconnected player's grace) is due then, not before.
    timekeeper.deadlines_write([(2, 1, at(-1))])
    assert timekeeper.due_pop(now=time.time(), queue=queue) == [(2, 1)]


def test_workers_popping_at_once_never_take_the_same_turn(queue):
    timekeeper.deadlines_write([(hand, 1, at(-1)) for hand in range(1, 401)])
    taken: list[list[tuple[int, int]]] = [[] for _ in range(4)]

    def keeper(i: int) -> None:
        while batch := timekeeper.due_pop(now=time.time(), queue=queue, limit=7):
            taken[i].extend(batch)

    threads = [threading.Thread(target=keeper, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [entry for batch in taken for entry in batch]
    assert sorted(everything) == [(hand, 1) for hand in range(1, 401)]


def test_a_redis_that_is_down_costs_a_log_line_not_the_change(queue, caplog):
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0"):
        client, timekeeper._client = timekeeper._client, None
        try:
            timekeeper.deadlines_write([(1, 1, at(1))])
        finally:
            timekeeper._client = client
    assert "the sweep will act on them" in caplog.text


@pytest.mark.django_db
def test_the_embedded_timekeeper_reads_due_turns_from_the_database_and_sends_each_once():
    table = make_table(next_hand_delay_seconds=3600)
    make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    hand = deal_hand(table)
    keeper = timekeeper.Timekeeper(queue=settings.CELERY_TASK_DEFAULT_QUEUE, interval=1)
    keeper.redis = False
    assert keeper._due_from_database() == []
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert keeper._due_from_database() == [(hand.pk, hand.turn)]
    assert keeper._due_from_database() == []  # sent already; its task has not run yet
    keeper.resend_after = 0
    assert keeper._due_from_database() == [(hand.pk, hand.turn)]


@pytest.mark.django_db
def test_acting_in_time_sends_no_task_and_leaves_only_the_current_turn(
    queue, django_capture_on_commit_callbacks
):
    """Each turn's deadline replaces the one before; no task goes to the queue for a turn
    played in time, and the hand's last entry goes when it ends."""
    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from tests.factories import call_down

    table = make_table(next_hand_delay_seconds=3600)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    with django_capture_on_commit_callbacks(execute=True):
        hand = deal_hand(table)
    assert entries(queue) == {f"{hand.pk}:1": hand.deadline.timestamp()}
    to_act = EngineHand.from_dict(hand.state).to_act
    with django_capture_on_commit_callbacks(execute=True):
        services.table_act(
            table=table, player=players[to_act], action="call", amount=None, turn=1, seq=1
        )
    hand.refresh_from_db()
    assert entries(queue) == {f"{hand.pk}:2": hand.deadline.timestamp()}
    with django_capture_on_commit_callbacks(execute=True):
        call_down(hand, players)
    assert entries(queue) == {}
    # Not one timer task was sent: the queue holds only the next hand's start.
    sent = [json.loads(m)["headers"]["task"] for m in timekeeper._redis().lrange(queue, 0, -1)]
    assert sent == ["poker.start_next_hand"]
