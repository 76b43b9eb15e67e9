"""Every WebSocket route of the room, gathered from the apps."""

from lobby.routing import websocket_urlpatterns as lobby_routes

websocket_urlpatterns = [*lobby_routes]
