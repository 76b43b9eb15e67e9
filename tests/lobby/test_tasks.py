"""The worker heartbeat beat sends: a real worker on the Redis broker records it, and /healthz
reports its age, which is how operators see that some worker consumes the room's queue."""

import socket
import time

import pytest
from django.urls import reverse

from config.celery import app as celery_app
from lobby.models import WorkerHeartbeat

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_records_the_heartbeat_beat_sends_and_healthz_reports_its_age(
    celery_worker_process, client
):
    assert client.get(reverse("healthz")).json()["worker_heartbeat_age_seconds"] is None
    celery_app.send_task("lobby.record_worker_heartbeat")  # by name, as beat sends it
    deadline = time.monotonic() + 30
    while not WorkerHeartbeat.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    heartbeat = WorkerHeartbeat.objects.first()
    assert heartbeat is not None, celery_worker_process.log_path.read_text()[-2000:]
    assert heartbeat.hostname == socket.gethostname()  # the worker's own host
    assert 0 <= client.get(reverse("healthz")).json()["worker_heartbeat_age_seconds"] < 30
