from django.urls import path

from showdown.consumers import LiveShowdownConsumer

websocket_urlpatterns = [path("ws/showdown/<int:table_id>/", LiveShowdownConsumer.as_asgi())]
