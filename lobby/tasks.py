import socket

from celery import shared_task

from lobby.heartbeats import worker_heartbeat_record


@shared_task(name="lobby.record_worker_heartbeat", ignore_result=True)
def record_worker_heartbeat(hostname: str | None = None) -> None:
    """Lets /healthz and staff see that a worker is alive and consuming the room's queue."""
    worker_heartbeat_record(hostname=hostname or socket.gethostname())
