from django.urls import path

from fairness import api

urlpatterns = [
    path("seed/", api.ClientSeedView.as_view(), name="api-fairness-seed"),
    path("hand/<int:hand_id>/", api.HandCheckView.as_view(), name="api-fairness-hand"),
    path("round/<int:round_id>/", api.RoundCheckView.as_view(), name="api-fairness-round"),
]
