"""kill -9 of a table's owner (bench/chaos.py `kill="owners"`): bots play
through real WebSockets against two daphne processes, each owning tables (poker/owner.py),
and the owner of a running hand gets SIGKILL; play resumes elsewhere within the lease."""

from dataclasses import asdict

import pytest
from django.conf import settings

from bench.chaos import ChaosSpec, chaos_seed
from tests.poker.fault_run import SEED, play_and_count

pytestmark = pytest.mark.chaos


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(420)
def test_kill_9_of_a_table_s_owner_mid_hand_resumes_play_in_seconds(live_database_url, tmp_path):
    """The ASGI process owning a table (poker/owner.py) gets SIGKILL while a
    hand runs there; another process takes the lapsed lease, rebuilds the table from the
    database and play goes on: no hand lost or dealt twice, the books balance."""
    if settings.EMBEDDED:
        pytest.skip("the fault run needs REDIS_URL (separate processes share Redis)")
    seeds = chaos_seed(tables=2, bots=3, prefix="owner")
    spec = ChaosSpec(
        database_url=live_database_url,
        tables=[asdict(seed) for seed in seeds],
        log_dir=str(tmp_path),
        hands=6,
        min_kills=2,
        seed=SEED,
        kill_every=(1.0, 3.0),
        stuck_seconds=10,
        timeout=200,
        queue=f"{settings.CELERY_TASK_DEFAULT_QUEUE}-owners",
        # No pause to show a showdown's cards (nobody looks): the bots' hands follow one
        # another, and the run is over once its kills are made.
        env={"POKER_SHOWDOWN_PAUSE_SCALE": "0"},
        kill="owners",
    )

    result, books = play_and_count(spec, seeds)
    kills = result["faults"]["kills"]
    context = f"seed {SEED}; logs in {tmp_path}; kills {kills}; books {books}"
    print(context)
    assert len(kills) >= 2 and all(kill["owner_of"] for kill in kills), context
    # The lease (POKER_TABLE_LEASE_SECONDS, 4 s) lapses at most that long after the kill; the
    # rest is a loaded machine's margin. The figures of a quiet run: docs/benchmarks.md.
    limit = settings.POKER_TABLE_LEASE_SECONDS + 6
    assert all(k["resume_seconds"] is not None and k["resume_seconds"] <= limit for k in kills)
    assert result["faults"]["reached"], f"too few hands ended: {context}"
    assert not result["overdue"], f"hands stuck past the limit: {result['overdue']}; {context}"
    assert result["wind_down"]["ok"], f"hands still running after the wind-down: {context}"
    assert not books.problems, "\n".join(books.problems) + "\n" + context
    assert books.running == 0, context
    assert "server_error" not in result["bots"]["errors"], context
