from django.urls import path

from responsible import views

app_name = "responsible"

urlpatterns = [
    path("limits/", views.limit_set, name="limit_set"),
    path("exclusion/", views.exclusion, name="exclusion"),
    path("reality-check/", views.reality_check, name="reality_check"),
]
