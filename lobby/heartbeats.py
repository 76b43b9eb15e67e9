"""The worker heartbeat's one write (the task is in `lobby.tasks`, the reader in config.health)."""

from django.utils import timezone

from lobby.models import WorkerHeartbeat


def worker_heartbeat_record(*, hostname: str) -> WorkerHeartbeat:
    heartbeat, _ = WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"beat_at": timezone.now()}
    )
    return heartbeat
