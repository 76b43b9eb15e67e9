from django.urls import path

from showdown import live_views, views

app_name = "showdown"

urlpatterns = [
    path("history/", views.history, name="history"),
    path("<int:table_id>/", views.play, name="table"),
    path("live/<int:table_id>/", live_views.live_table, name="live"),
    path("<int:table_id>/deal", views.deal, name="deal"),
    path("rounds/<int:round_id>/decide", views.decide, name="decide"),
]
