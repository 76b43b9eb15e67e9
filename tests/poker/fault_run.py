"""The fault runs' shared step (tests/poker/test_chaos.py, test_chaos_owner.py): play a
bench/chaos.py run in a child process, then count its tables' books."""

import os

from bench.chaos import WALLET, Books, ChaosSpec, books_check, play_in_child

# Fixed, so CI kills on the same schedule every run; set CHAOS_SEED to try others.
SEED = int(os.environ.get("CHAOS_SEED", "20261124"))


def play_and_count(spec: ChaosSpec, seeds) -> tuple[dict, Books]:
    """Play the fault run in a child process, then count the books of its tables: every
    cent its bots were given must still be held."""
    result = play_in_child(spec, timeout=380)
    players = [bot.user_id for seed in seeds for bot in seed.bots]
    books = books_check(
        table_ids=[seed.table_id for seed in seeds],
        player_ids=players,
        deposited=WALLET * len(players),
    )
    return result, books
