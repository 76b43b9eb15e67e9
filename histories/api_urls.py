from django.urls import path

from histories import api

urlpatterns = [
    path("", api.HandListView.as_view(), name="api-hands"),
    path("<int:hand_id>/", api.HandDetailView.as_view(), name="api-hand"),
]
