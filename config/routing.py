"""Every WebSocket route of the room, gathered from the apps."""

from lobby.routing import websocket_urlpatterns as lobby_routes
from poker.routing import websocket_urlpatterns as poker_routes

websocket_urlpatterns = [*lobby_routes, *poker_routes]
