"""The room's own liveness records (players' profiles live in `accounts`)."""

from django.db import models


class WorkerHeartbeat(models.Model):
    """One row per Celery worker host, touched by a periodic task; /healthz reports its age."""

    hostname = models.CharField(max_length=255, unique=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} at {self.beat_at:%Y-%m-%d %H:%M:%S}"
