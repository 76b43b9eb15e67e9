"""kill -9 at running Sit & Gos (bench/sng.py's `sng_fault_play`, with bench/chaos.py's room
and bots): bots play a 6-max and a heads-up Sit & Go through real WebSockets against two
daphne processes and a Celery worker with beat. The kills come first, each on a condition,
never on a clock: a hand running at the table and a live process of the room holding its
lease; that process gets SIGKILL (the 6-max table's owner, then the heads-up table's). The
stacks are deep and the one level lasts, so nobody is out before the kills are done; then
every bot shoves and both Sit & Gos end in a few hands. Each prize pool is paid once, in
one ledger entry; the places are complete; no hand was dealt twice; every hand started with
every chip in play; the ledger verifies."""

from dataclasses import asdict
from datetime import datetime

import pytest
from django.conf import settings
from django.test import override_settings

from bench.chaos import ChaosSpec, play_in_child
from bench.sng import sng_books_check, sng_seed
from poker.models import Hand
from tests.poker.fault_run import SEED

pytestmark = pytest.mark.chaos

# One level, 5,000 big blinds deep: random bots lose no stack while the kills are made.
LEVELS = [(10, 20)]
STARTING_CHIPS = 100_000
# The room's lease (POKER_TABLE_LEASE_SECONDS): a killed owner's tables move on after it.
LEASE_SECONDS = 3


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(240)
def test_kill_9_of_sit_and_go_owners_mid_hand_pays_each_prize_pool_exactly_once(
    live_database_url, tmp_path
):
    if settings.EMBEDDED:
        pytest.skip("the fault run needs REDIS_URL (separate processes share Redis)")
    queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-sng"
    deep = {"level_seconds": 3600, "starting_chips": STARTING_CHIPS, "levels": LEVELS}
    # The first hand's timer goes to this run's own worker.
    with override_settings(CELERY_TASK_DEFAULT_QUEUE=queue):
        tables = [
            *sng_seed(sngs=1, seats=6, prefix="six", **deep),
            *sng_seed(sngs=1, seats=2, prefix="duo", **deep),
        ]
    six, duo = (t["table_id"] for t in tables)
    spec = ChaosSpec(
        database_url=live_database_url,
        tables=tables,
        log_dir=str(tmp_path),
        hands=0,
        min_kills=2,
        seed=SEED,
        stuck_seconds=10,
        timeout=120,
        queue=queue,
        # No pause to show a showdown's cards: the shoves' hands follow one another.
        env={"POKER_TABLE_LEASE_SECONDS": str(LEASE_SECONDS), "POKER_SHOWDOWN_PAUSE_SCALE": "0"},
        kill="owners",
        tournament=True,
    )

    result = play_in_child(spec, timeout=200)
    books = sng_books_check(table_ids=[six, duo])
    kills = result["kills"]
    context = (
        f"seed {SEED}; logs in {tmp_path}; {result.get('seconds')} s (kills done at "
        f"{result.get('kills_seconds')} s); kills {kills}; books {asdict(books)}; "
        f"bots {result['bots']}"
    )
    print(context)
    assert [kill["owner_of"] for kill in kills] == [six, duo], context
    for kill in kills:
        # Mid-hand: the hand seen running before the kill ended after it.
        ended_at = Hand.objects.get(pk=kill["hand"]).ended_at
        assert ended_at is not None and ended_at > datetime.fromisoformat(kill["killed_at"])
        # The lease lapses at most its length after the kill; the rest is a busy machine's.
        assert kill["resume_seconds"] is not None, context
        assert kill["resume_seconds"] <= LEASE_SECONDS + 6, context
    assert result["over"], f"a Sit & Go did not finish: {context}"
    assert not result["overdue"], f"hands stuck past the limit: {result['overdue']}; {context}"
    assert not books.problems, "\n".join(books.problems) + "\n" + context
    assert books.finished_sngs == 2 and books.payouts == 2 and books.running == 0, context
    assert "server_error" not in result["bots"]["errors"], context
