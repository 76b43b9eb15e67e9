"""Celery on the real Redis broker with a real worker process."""

import time

import pytest
from django.utils import timezone

from lobby.models import WorkerHeartbeat
from lobby.tasks import record_worker_heartbeat

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_task_with_countdown_runs_on_a_real_worker_after_the_countdown(celery_worker_process):
    scheduled_at = timezone.now()
    record_worker_heartbeat.apply_async(kwargs={"hostname": "countdown-probe"}, countdown=2)

    deadline = time.monotonic() + 30
    heartbeat = None
    while heartbeat is None and time.monotonic() < deadline:
        heartbeat = WorkerHeartbeat.objects.filter(hostname="countdown-probe").first()
        time.sleep(0.2)

    assert heartbeat is not None, celery_worker_process.log_path.read_text()[-2000:]
    assert (heartbeat.beat_at - scheduled_at).total_seconds() >= 2
