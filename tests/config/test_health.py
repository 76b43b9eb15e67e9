"""/healthz: green with everything up; 503 naming the part that is down."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_healthz_green(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["components"] == {"database": "ok", "channel_layer": "ok", "broker": "ok"}
    assert body["down"] == []


def test_healthz_503_when_redis_is_unreachable(client, settings):
    if settings.EMBEDDED:
        pytest.skip("embedded mode has no Redis")
    unreachable = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [unreachable]},
        }
    }
    settings.CELERY_BROKER_URL = unreachable
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert set(body["down"]) == {"channel_layer", "broker"}
    assert body["components"]["database"] == "ok"
    assert body["components"]["broker"].startswith("down:")
