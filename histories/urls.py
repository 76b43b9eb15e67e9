from django.urls import include, path

from histories import views

app_name = "histories"

urlpatterns = [
    path("", views.my_hands, name="my_hands"),
    path("results/", views.my_results, name="my_results"),
    path("shared/<str:token>/", views.hand_shared, name="shared"),
    path("<int:hand_id>/", views.hand, name="hand"),
    path("", include("histories.export_urls")),
]
