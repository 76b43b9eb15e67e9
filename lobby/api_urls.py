from django.urls import path

from lobby import api

urlpatterns = [
    path("me/", api.MeView.as_view(), name="api-me"),
    path("token/", api.TokenView.as_view(), name="api-token"),
]
