"""Every WebSocket route of the room, gathered from the apps."""

from lobby.routing import websocket_urlpatterns as lobby_routes
from poker.routing import websocket_urlpatterns as poker_routes
from showdown.routing import websocket_urlpatterns as showdown_routes

websocket_urlpatterns = [*lobby_routes, *poker_routes, *showdown_routes]
