"""The room's ASGI application plus static files, for browser tests served by daphne.

Production serves /static/ from the load balancer (docs/operations.md); a test server has none,
so this wraps the HTTP side in Django's static files handler, as `runserver` does.
"""

from channels.routing import ProtocolTypeRouter
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from config.asgi import application as room

application = ProtocolTypeRouter(
    {
        "http": ASGIStaticFilesHandler(room.application_mapping["http"]),
        "websocket": room.application_mapping["websocket"],
    }
)
