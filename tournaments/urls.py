from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("mine/", views.mine, name="mine"),
    path("<int:tournament_id>/", views.sit_and_go, name="sit_and_go"),
    path("<int:tournament_id>/register/", views.register, name="register"),
    path("<int:tournament_id>/unregister/", views.unregister, name="unregister"),
]
