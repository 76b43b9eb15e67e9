"""The ASGI application: Django for HTTP, Channels consumers for WebSockets (session auth), both
seeing the client's address and scheme as our trusted proxies reported them (config/proxies.py);
a socket's page must be the room's own, scheme and host (config/origins.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.db_pool import SocketsClosedWhenBusy  # noqa: E402
from config.origins import RoomOriginValidator  # noqa: E402
from config.proxies import ProxyHeadersMiddleware  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": ProxyHeadersMiddleware(django_asgi_app),
        "websocket": ProxyHeadersMiddleware(
            RoomOriginValidator(
                SocketsClosedWhenBusy(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
            )
        ),
    }
)
