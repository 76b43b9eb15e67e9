from django.urls import path

from tournaments import api

urlpatterns = [
    path("", api.SitAndGoListView.as_view(), name="api-tournaments"),
    path("<int:tournament_id>/", api.SitAndGoLiveView.as_view(), name="api-tournament"),
    path(
        "<int:tournament_id>/register/", api.RegisterView.as_view(), name="api-tournament-register"
    ),
    path(
        "<int:tournament_id>/unregister/",
        api.UnregisterView.as_view(),
        name="api-tournament-unregister",
    ),
]
