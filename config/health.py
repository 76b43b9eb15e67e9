"""`/healthz`: is each part the room needs reachable right now?

Answers 200 when the database, the channel layer and the Celery broker all respond, 503 naming
what is down otherwise. Load balancers and monitors poll it, so every check is bounded in time.
`owner` says what this process's table owner does (poker/owner.py `owner_report`).
"""

import asyncio
import time
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from kombu import Connection

from lobby.models import WorkerHeartbeat
from poker.owner import owner_report

CHECK_TIMEOUT_SECONDS = 2.0


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


async def _channel_round_trip() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel("healthz.")
    marker = uuid.uuid4().hex
    # Through Redis even though the channel is this process's (config/channel_layer.py).
    send = getattr(layer, "send_through_redis", layer.send)
    await send(channel, {"type": "healthz.ping", "marker": marker})
    message = await layer.receive(channel)
    if message.get("marker") != marker:
        raise RuntimeError("the channel layer returned another message")


def check_channel_layer() -> str:
    async def bounded() -> None:
        await asyncio.wait_for(_channel_round_trip(), timeout=CHECK_TIMEOUT_SECONDS)

    async_to_sync(bounded)()
    return "ok"


def check_broker() -> str:
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=CHECK_TIMEOUT_SECONDS) as broker:
        broker.ensure_connection(max_retries=1, timeout=CHECK_TIMEOUT_SECONDS)
    return "ok"


def worker_heartbeat_age_seconds() -> float | None:
    """Seconds since a worker last reported in: reported, not judged (workers may scale to 0)."""
    latest = WorkerHeartbeat.objects.order_by("-beat_at").values_list("beat_at", flat=True).first()
    return None if latest is None else round((timezone.now() - latest).total_seconds(), 1)


CHECKS = {
    "database": check_database,
    "channel_layer": check_channel_layer,
    "broker": check_broker,
}


def healthz(request: HttpRequest) -> JsonResponse:
    started = time.monotonic()
    components: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            components[name] = check()
        except Exception as exc:  # any failure means "down"; say which and why
            components[name] = f"down: {type(exc).__name__}: {exc}"[:300]
    down = [name for name, state in components.items() if state != "ok"]
    body: dict = {
        "status": "ok" if not down else "down",
        "down": down,
        "components": components,
        "mode": "embedded" if settings.EMBEDDED else "production",
        "elapsed_ms": round((time.monotonic() - started) * 1000, 1),
    }
    if "database" not in down:
        body["worker_heartbeat_age_seconds"] = worker_heartbeat_age_seconds()
    # What this process's table owner does (docs/operations.md, "Scale out": what to watch).
    body["owner"] = owner_report()
    return JsonResponse(body, status=200 if not down else 503)
