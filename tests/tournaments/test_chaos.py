"""kill -9 at a running Sit & Go (bench/chaos.py `kill="owners"`, bench/sng.py's Sit & Gos):
bots play two Sit & Gos (6-max and heads-up, blinds rising every few seconds) through real
WebSockets against two daphne processes and a Celery worker with beat, while the process
owning a table with a hand running gets SIGKILL, the kills after the first at a table
playing heads-up when there is one (each of its hands may end the Sit & Go and pay its
prizes). Play resumes on another process; both Sit & Gos finish, each prize pool paid
exactly once, nothing dealt twice, and the ledger verifies."""

from dataclasses import asdict

import pytest
from django.conf import settings
from django.test import override_settings

from bench.chaos import ChaosSpec, play_in_child
from bench.load import TableSeed
from bench.sng import sng_books_check, sng_seed
from tests.poker.fault_run import SEED

pytestmark = pytest.mark.chaos

# Short levels and short stacks: a Sit & Go of random bots is over in a minute or so.
LEVELS = [(10, 20), (20, 40), (40, 80), (75, 150), (150, 300), (300, 600), (600, 1200)]


@pytest.mark.long
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(420)
def test_kill_9_of_a_sit_and_go_s_owner_pays_the_prize_pool_exactly_once(
    live_database_url, tmp_path
):
    if settings.EMBEDDED:
        pytest.skip("the fault run needs REDIS_URL (separate processes share Redis)")
    queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-sng"
    # The first hand's and the first level's timers go to this run's own worker.
    with override_settings(CELERY_TASK_DEFAULT_QUEUE=queue):
        tables = [
            *sng_seed(sngs=1, seats=6, prefix="six", level_seconds=6, starting_chips=1000,
                      levels=LEVELS),
            *sng_seed(sngs=1, seats=2, prefix="duo", level_seconds=6, starting_chips=1000,
                      levels=LEVELS),
        ]  # fmt: skip
    spec = ChaosSpec(
        database_url=live_database_url,
        tables=tables,
        log_dir=str(tmp_path),
        hands=0,
        min_kills=2,
        seed=SEED,
        kill_every=(0.5, 1.5),
        stuck_seconds=10,
        timeout=240,
        queue=queue,
        kill="owners",
        tournament=True,
    )

    result = play_in_child(spec, timeout=380)
    books = sng_books_check(table_ids=[TableSeed(**t).table_id for t in tables])
    kills = result["faults"]["kills"]
    context = f"seed {SEED}; logs in {tmp_path}; kills {kills}; books {asdict(books)}"
    print(context)
    assert result["faults"]["reached"], f"a Sit & Go did not finish: {context}"
    assert len(kills) >= 2 and all(kill["owner_of"] for kill in kills), context
    limit = settings.POKER_TABLE_LEASE_SECONDS + 6
    assert all(k["resume_seconds"] is not None and k["resume_seconds"] <= limit for k in kills)
    assert not result["overdue"], f"hands stuck past the limit: {result['overdue']}; {context}"
    assert not books.problems, "\n".join(books.problems) + "\n" + context
    assert books.finished_sngs == 2 and books.payouts == 2 and books.running == 0, context
    assert "server_error" not in result["bots"]["errors"], context
