"""The Celery app: timers and periodic sweeps. Broker and schedule come from settings."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("room")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _drop_unusable_connections(**_: object) -> None:
    """Reuse the worker's database connection between tasks (CELERY_DB_REUSE_MAX) as Django
    reuses a web process's: dropped once broken or older than CONN_MAX_AGE."""
    from django.db import close_old_connections

    close_old_connections()
