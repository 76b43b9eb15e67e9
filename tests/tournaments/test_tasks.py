"""Sit & Go level clocks on a real Celery worker (Redis broker, the test database): the
beat's sweep advances a level whose end passed while its timer was lost."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import make_funded_player
from tests.factories import make_sit_and_go as make_sng
from tournaments.models import Tournament
from tournaments.services import tournament_register
from tournaments.tasks import sweep_levels

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_sweep_on_a_worker_advances_a_level_whose_timer_was_lost(celery_worker_process):
    sng = make_sng(seats=2, starting_chips=100)
    for name in ("ann", "bob"):
        player = make_funded_player(name, cents=5_000)
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{name}")
    # The level's own timer is minutes ahead in the queue (as if lost): its end is passed now.
    Tournament.objects.filter(pk=sng.pk).update(
        next_level_at=timezone.now() - timedelta(seconds=10)
    )
    sweep_levels.delay()
    deadline = time.monotonic() + 30
    while Tournament.objects.get(pk=sng.pk).level != 2:
        if time.monotonic() > deadline:
            raise AssertionError(celery_worker_process.log_path.read_text()[-3000:])
        time.sleep(0.1)
    sng.refresh_from_db()
    assert sng.next_level_at > timezone.now()  # the next level's clock set from now
    assert sng.table.big_blind == 30
