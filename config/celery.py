"""The Celery app: timers and periodic sweeps. Broker and schedule come from settings."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("room")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class RoomWorker(app.Worker):
    """Every worker of the room runs without Celery's gossip and mingle steps, whatever its
    command line says. The room uses neither (they share revoked task ids and clocks between
    workers), and gossip's restart after the broker connection drops could end the worker for
    good when Redis restarted soon after it started (`AttributeError: 'NoneType' object has no
    attribute 'hostname'` from a channel closed under it; celery/kombu#582): the consumer
    reconnects without them, retrying forever (CELERY_BROKER_CONNECTION_MAX_RETRIES)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["without_gossip"] = True
        kwargs["without_mingle"] = True
        super().__init__(*args, **kwargs)


app.Worker = RoomWorker


@task_prerun.connect
@task_postrun.connect
def _return_connection_to_pool(**_: object) -> None:
    """Give the task's database connection back to the pool (a broken one is dropped), as a
    finished web request does, so a worker process holds only what its running task uses.
    Celery's own fix-up would close the whole pool instead (CELERY_DB_REUSE_MAX, settings)."""
    from django.db import close_old_connections

    close_old_connections()
