from django.urls import path

from fairness import views

app_name = "fairness"

urlpatterns = [
    path("", views.deals, name="deals"),
    path("hand/<int:hand_id>/", views.hand, name="hand"),
    path("round/<int:round_id>/", views.showdown_round, name="round"),
    path("seed/", views.seed_set, name="seed_set"),
]
