from django.urls import path

from showdown import api

app_name = "showdown-api"

urlpatterns = [
    path("tables/", api.TablesView.as_view(), name="tables"),
    path("rounds/", api.RoundsView.as_view(), name="rounds"),
    path("rounds/<int:round_id>/", api.RoundView.as_view(), name="round"),
    path("rounds/<int:round_id>/decide/", api.DecideView.as_view(), name="decide"),
]
