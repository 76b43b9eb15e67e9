"""The session limit's timer on a real Celery worker (Redis broker, the test database): the
session ends when its time passes though the player does nothing."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from poker.models import Seat
from responsible.models import PlaySession, ResponsibleGamingEvent
from responsible.services import session_limit_set
from tests.factories import make_seated_player, make_table

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_timer_stands_an_idle_player_up_when_the_session_reaches_its_limit(
    celery_worker_process,
):
    table = make_table()
    alice = make_seated_player(table, "alice", 1)  # alone: no hand, the seat is left at once
    # The session began almost 10 minutes ago: a 10-minute limit's timer is due in a second.
    PlaySession.objects.filter(player=alice).update(
        started_at=timezone.now() - timedelta(minutes=10) + timedelta(seconds=1)
    )
    session_limit_set(player=alice, minutes=10)
    assert Seat.objects.filter(player=alice).exists()  # not yet
    deadline = time.monotonic() + 30
    while Seat.objects.filter(player=alice).exists():
        assert time.monotonic() < deadline, celery_worker_process.log_path.read_text()[-3000:]
        time.sleep(0.1)
    assert PlaySession.objects.get(player=alice).limit_reached_at is not None
    event = ResponsibleGamingEvent.objects.get(player=alice, kind="session_limit_reached")
    assert event.detail["tables"] == [table.pk]
