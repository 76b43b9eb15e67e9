"""The planted cheats of a small synthetic population rank first in their queues
(bench/integrity.py plays it through the room's services; the larger run's figures are in
docs/benchmarks.md, "Integrity checks")."""

import pytest
from django.test import override_settings

from bench.integrity import Population, population_play, ranks
from integrity.services import integrity_run

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("seed", [3, 4])
@override_settings(INTEGRITY_MIN_HANDS_TOGETHER=4, INTEGRITY_MIN_DECISIONS=10)
def test_each_planted_case_tops_its_queue(seed):
    planted = population_play(
        Population(
            tables=2,
            hands=80,
            honest=6,
            pairs=1,
            bot_tables=2,
            round_hands=6,
            seed=seed,
            through="engine",
        )
    )
    run = integrity_run(since=planted.since, until=planted.until)
    found = ranks(run, planted)
    assert found["bot"] == 1
    assert sorted([*found["pairs"], found["dumper"]]) == [1, 2]
    # The dumper's chips flow to its partner, past chance.
    dumper, recipient = planted.dumper
    flow = found["dumper_flow"]
    assert (flow["from"], flow["to"]) == (dumper, recipient) and flow["score"] > 0
    # The money cases top the AML queue, each with its own flag; no honest player is flagged.
    assert sorted(found["aml"].values()) == [1, 2, 3]
    assert found["aml_kinds"] == {
        "structurer": ["structuring"],
        "pass_through": ["little_play"],
        "large_deposit": ["large_deposit"],
    }
    assert found["honest_aml_flagged"] == 0
