"""kill -9 at live tables (bench/chaos.py, CI size): bots play through real WebSockets against
two real daphne processes and a real Celery worker with beat, while the worker and the ASGI
processes get SIGKILL at seeded moments and are started again. Afterwards every hand is over
(finished, or cancelled with every chip back), no stack is left marked in a hand, the ledger
verifies and every cent deposited is still held. (A table's owner killed:
tests/poker/test_chaos_owner.py; Redis restarted under a worker: test_chaos_redis.py.)"""

from dataclasses import asdict

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from bench.chaos import WALLET, ChaosSpec, books_check, chaos_seed
from poker import services
from poker.models import Table
from tests.poker.fault_run import SEED, play_and_count

pytestmark = pytest.mark.chaos

HANDS = 12
KILLS = 4  # at least, the first two being one worker and one ASGI process


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(420)
def test_kill_9_of_worker_and_asgi_processes_mid_play_loses_no_hand_and_no_chip(
    live_database_url, tmp_path
):
    if settings.EMBEDDED:
        pytest.skip("the fault run needs REDIS_URL (separate processes share Redis)")
    seeds = chaos_seed(tables=2, bots=3)
    spec = ChaosSpec(
        database_url=live_database_url,
        tables=[asdict(seed) for seed in seeds],
        log_dir=str(tmp_path),
        hands=HANDS,
        min_kills=KILLS,
        seed=SEED,
        kill_every=(2.0, 5.0),
        stuck_seconds=10,
        timeout=200,
        # Its own queue: a worker of the session must not run this run's timers.
        queue=f"{settings.CELERY_TASK_DEFAULT_QUEUE}-chaos",
    )

    result, books = play_and_count(spec, seeds)
    faults = result["faults"]
    kinds = {"worker" if k["process"] == "worker" else "asgi" for k in faults["kills"]}
    context = (
        f"seed {SEED} (CHAOS_SEED replays the kills); logs in {tmp_path}; "
        f"{faults['hands']} hands in {faults['seconds']} s under {len(faults['kills'])} kills "
        f"{faults['kills']}; bots {result['bots']}; books {books}"
    )
    print(context)
    assert faults["reached"] and faults["hands"] >= HANDS, f"too few hands ended: {context}"
    assert len(faults["kills"]) >= KILLS and kinds == {"worker", "asgi"}, context
    assert not result["overdue"], f"hands stuck past the limit: {result['overdue']}; {context}"
    assert result["wind_down"]["ok"], f"hands still running after the wind-down: {context}"
    assert not books.problems, "\n".join(books.problems) + "\n" + context
    assert books.running == 0 and books.finished + books.cancelled >= HANDS, context
    assert "server_error" not in result["bots"]["errors"], context


@pytest.mark.django_db
def test_the_books_check_names_a_running_hand_marked_stacks_and_missing_money():
    """What the fault run asserts on can fail: a hand left running, stacks left marked in it
    and money that does not add up are each named; once the hand is cancelled, all is clean."""
    (seed,) = chaos_seed(tables=1, bots=2, prefix="books")
    table = Table.objects.get(pk=seed.table_id)
    players = []
    for bot in seed.bots:
        player = get_user_model().objects.get(pk=bot.user_id)
        services.table_sit(
            table=table,
            player=player,
            seat_number=bot.seat,
            buy_in=table.max_buy_in,
            post_big_blind=True,
            idempotency_key=f"books-{bot.user_id}",
        )
        players.append(player.pk)
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    hand = services.table_hand_start(table=table)

    books = books_check(table_ids=[table.pk], player_ids=players, deposited=WALLET * 2 + 1)
    assert books.running == 1 and books.marked_stacks == 2
    assert any(f"hand {hand.pk} is still running" in p for p in books.problems), books.problems
    assert sum("still marked in hand" in p for p in books.problems) == 2, books.problems
    assert any("were deposited (-1)" in p for p in books.problems), books.problems

    services.hand_cancel(hand=hand, reason="The chaos test cancelled it.")
    books = books_check(table_ids=[table.pk], player_ids=players, deposited=WALLET * 2)
    assert books.problems == [] and books.cancelled == 1 and books.held == WALLET * 2
