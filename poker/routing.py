from django.urls import path

from poker.consumers import TableConsumer

websocket_urlpatterns = [path("ws/tables/<int:table_id>/", TableConsumer.as_asgi())]
