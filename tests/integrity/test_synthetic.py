"""The planted cheats of a small synthetic population rank first in their queues
(bench/integrity.py plays it through the room's services; the larger run's figures are in
docs/benchmarks.md, "Integrity checks")."""

import pytest
from django.test import override_settings

from bench.integrity import Population, population_play, ranks
from integrity.services import integrity_run

pytestmark = pytest.mark.django_db


@override_settings(INTEGRITY_MIN_HANDS_TOGETHER=4, INTEGRITY_MIN_DECISIONS=10)
def test_each_planted_case_tops_its_queue():
    planted = population_play(
        Population(
            tables=2,
            hands=80,
            honest=6,
            pairs=1,
            bot_tables=2,
            round_hands=6,
            seed=3,
            through="engine",
        )
    )
    run = integrity_run(since=planted.since, until=planted.until)
    found = ranks(run, planted)
    assert found["bot"] == 1
    assert sorted([*found["pairs"], found["dumper"]]) == [1, 2]
