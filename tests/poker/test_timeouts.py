"""The room's one timer path (config/timeouts.py) at the poker table, on the fake clock: each
turn sets one timeout for (table, hand, turn) on commit; one for a turn that has moved on
costs one read and changes nothing; a due one acts once however often it comes; the next
hand's start and a sitter-out's eviction ride the same path. The real worker's runs of each
kind are in test_tasks.py."""

import base64
import json
import time
import uuid
from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from config.timeouts import timeout_fire
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.services.acting import sat_out_step
from tests.factories import call_down, deal_hand, make_seated_player, make_table, priority_lists

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue():
    """A queue of this test's own on the broker's Redis: the timeouts sent to it wait there
    (no worker reads it), so the test can read what was sent."""
    if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        pytest.skip("reads the queue on the broker's Redis (REDIS_URL)")
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    name = f"timeouts-test-{uuid.uuid4().hex[:8]}"
    with override_settings(CELERY_TASK_DEFAULT_QUEUE=name):
        yield lambda: sent_timeouts(client, name)
    client.delete(*priority_lists(name))


def sent_timeouts(client, queue: str) -> list[tuple[str, int, int, int | str, datetime]]:
    """(kind, table, hand/seat, step, eta) of each task in the queue, oldest first in each
    priority lane, the urgent lane first."""
    sent = []
    waiting = [
        raw for lane in priority_lists(queue) for raw in reversed(client.lrange(lane, 0, -1))
    ]
    for raw in waiting:  # kombu pushes on the left
        message = json.loads(raw)
        assert message["headers"]["task"] == "room.timeout"
        args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        kind, table_id, ref_id, step, at = args
        assert datetime.fromisoformat(message["headers"]["eta"]).timestamp() == pytest.approx(at)
        sent.append((kind, table_id, ref_id, step, at))
    return sent


def two_players(**fields):
    table = make_table(next_hand_delay_seconds=3600, **fields)
    return table, {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}


def fire(kind: str, table_id: int, ref_id: int, step) -> str:
    """The timeout task, run here as a worker runs it when it is due."""
    return timeout_fire(kind, table_id, ref_id, step, time.time())


def test_each_turn_sets_one_timeout_and_the_hand_its_next_start(
    queue, django_capture_on_commit_callbacks
):
    table, players = two_players()
    with django_capture_on_commit_callbacks(execute=True):
        hand = deal_hand(table)
    assert queue() == [("poker.turn", table.pk, hand.pk, 1, hand.deadline.timestamp())]
    with django_capture_on_commit_callbacks(execute=True):
        hand = call_down(hand, players)
    assert hand.status == Hand.Status.FINISHED
    sent = queue()
    turns = [step for kind, _table, ref, step, _at in sent if kind == "poker.turn"]
    assert turns == list(range(1, hand.turn + 1))  # one per turn, none when the hand ends
    assert [entry[0] for entry in sent].count("poker.hand_start") == 1
    assert sent[-1][:4] == ("poker.hand_start", table.pk, 0, 0)
    assert sent[-1][4] == pytest.approx(Table.objects.get(pk=table.pk).next_hand_at.timestamp())


def test_a_level_clock_is_taken_off_the_queue_before_the_turns_waiting_there(queue):
    """The turns' timers go in the routine lane, the rest (a Sit & Go's level clock here) in
    the urgent one: a worker behind a busy room's turns takes the level's timer first. Read
    back by a kombu consumer on the same broker, as a worker reads the queue."""
    from kombu import Connection

    from config.timeouts import Timeout, timeouts_send

    at = timezone.now()
    turns = [Timeout.due_at("poker.turn", table_id=1, ref_id=n, step=1, at=at) for n in range(5)]
    level = Timeout.due_at("tournament.level", table_id=2, ref_id=7, step=2, at=at)
    timeouts_send([*turns, level])
    assert [kind for kind, *_rest in queue()] == ["tournament.level"] + ["poker.turn"] * 5

    name = settings.CELERY_TASK_DEFAULT_QUEUE
    taken = []
    with Connection(settings.CELERY_BROKER_URL) as connection:
        simple = connection.SimpleQueue(name, no_ack=True)
        for _ in range(6):
            message = simple.get(timeout=5)
            taken.append(message.headers["argsrepr"].split(",")[0].strip("(' "))
        simple.close()
    assert taken == ["tournament.level"] + ["poker.turn"] * 5


def test_a_refused_action_sets_no_timer(queue, django_capture_on_commit_callbacks):
    table, players = two_players()
    hand = deal_hand(table)
    waiting = 3 - EngineHand.from_dict(hand.state).to_act
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.TableError):
        services.table_act(
            table=table, player=players[waiting], action="call", amount=None, turn=1, seq=1
        )
    assert queue() == []


def test_a_timeout_for_a_turn_that_moved_on_costs_one_read_and_changes_nothing(
    django_assert_num_queries,
):
    table, players = two_players()
    hand = deal_hand(table)
    first = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table, player=players[first], action="call", amount=None, turn=1, seq=1
    )
    version = Table.objects.get(pk=table.pk).version
    with django_assert_num_queries(1):  # no transaction, no lock
        assert fire("poker.turn", table.pk, hand.pk, 1) == "moved_on"
    assert Table.objects.get(pk=table.pk).version == version
    hand.refresh_from_db()
    assert hand.turn == 2 and hand.status == Hand.Status.RUNNING
    actions = [(e["seat"], e["action"]) for e in hand.state["events"] if e["type"] == "action"]
    assert actions == [(first, "call")]


def test_a_due_timeout_acts_once_even_if_delivered_twice():
    table, _players = two_players()
    hand = deal_hand(table)
    slow = EngineHand.from_dict(hand.state).to_act
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert fire("poker.turn", table.pk, hand.pk, 1) == "fold"
    assert fire("poker.turn", table.pk, hand.pk, 1) == "moved_on"
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    actions = [e for e in hand.state["events"] if e["type"] == "action"]
    assert actions == [{"type": "action", "seat": slow, "action": "fold"}]


def test_an_early_timeout_sets_itself_again_for_the_deadline(
    queue, django_capture_on_commit_callbacks
):
    """A disconnected player's grace moved the deadline later: the turn's first timeout finds
    it ahead and is sent again for it (a clock a little ahead of the database's does too)."""
    table, _players = two_players()
    hand = deal_hand(table)
    deadline = timezone.now() + timedelta(seconds=40)
    Hand.objects.filter(pk=hand.pk).update(deadline=deadline)
    with django_capture_on_commit_callbacks(execute=True):
        assert fire("poker.turn", table.pk, hand.pk, 1) == "not_yet"
    assert queue() == [("poker.turn", table.pk, hand.pk, 1, deadline.timestamp())]


def test_the_next_hand_timer_deals_once():
    table, players = two_players()
    hand = deal_hand(table)
    first = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table, player=players[first], action="fold", amount=None, turn=1, seq=1
    )
    assert fire("poker.hand_start", table.pk, 0, 0) == "not_ready"  # the pause is not over
    Table.objects.filter(pk=table.pk).update(next_hand_at=timezone.now())
    assert fire("poker.hand_start", table.pk, 0, 0) == "dealt"
    assert fire("poker.hand_start", table.pk, 0, 0) == "moved_on"  # a duplicate
    assert Hand.objects.filter(table=table).count() == 2


def test_the_eviction_timer_evicts_only_the_sitting_out_it_was_set_for(
    queue, django_capture_on_commit_callbacks
):
    table, players = two_players(sit_out_limit_seconds=600)
    with django_capture_on_commit_callbacks(execute=True):
        services.table_sit_out(table=table, player=players[1])
    seat = Seat.objects.get(player=players[1])
    first = sat_out_step(seat.sat_out_at)
    limit = (seat.sat_out_at + timedelta(seconds=600)).timestamp()
    assert queue() == [("poker.sit_out", table.pk, seat.pk, first, limit)]
    # They came back and sat out again: the first timer is not theirs any more.
    services.table_sit_in(table=table, player=players[1], post_big_blind=False)
    services.table_sit_out(table=table, player=players[1])
    seat.refresh_from_db()
    assert fire("poker.sit_out", table.pk, seat.pk, first) == "moved_on"
    # Their own timer, early: nothing yet.
    second = sat_out_step(seat.sat_out_at)
    assert fire("poker.sit_out", table.pk, seat.pk, second) == "not_yet"
    assert Seat.objects.filter(pk=seat.pk).exists()
    # When it is due, the player is evicted once.
    Seat.objects.filter(pk=seat.pk).update(sat_out_at=seat.sat_out_at - timedelta(seconds=600))
    back = sat_out_step(seat.sat_out_at - timedelta(seconds=600))
    assert fire("poker.sit_out", table.pk, seat.pk, back) == "evicted"
    assert fire("poker.sit_out", table.pk, seat.pk, back) == "gone"
    assert not Seat.objects.filter(pk=seat.pk).exists()


def test_a_timeout_of_no_known_kind_is_logged_and_dropped(caplog):
    assert fire("poker.nothing", 1, 2, 3) == "unknown"
    assert "unknown kind 'poker.nothing'" in caplog.text
