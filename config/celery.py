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
def _return_connection_to_pool(**_: object) -> None:
    """Give the task's database connection back to the pool (a broken one is dropped), as a
    finished web request does, so a worker process holds only what its running task uses.
    Celery's own fix-up would close the whole pool instead (CELERY_DB_REUSE_MAX, settings)."""
    from django.db import close_old_connections

    close_old_connections()
