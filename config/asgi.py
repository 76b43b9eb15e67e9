"""The ASGI application: Django for HTTP, Channels consumers for WebSockets (session auth), both
seeing the client's address as our trusted proxies reported it (config/proxies.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.db_pool import SocketsClosedWhenBusy  # noqa: E402
from config.proxies import ProxyHeadersMiddleware  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": ProxyHeadersMiddleware(django_asgi_app),
        "websocket": ProxyHeadersMiddleware(
            AllowedHostsOriginValidator(
                SocketsClosedWhenBusy(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
            )
        ),
    }
)
