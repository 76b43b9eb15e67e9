from django.urls import path

from poker import views

app_name = "poker"

urlpatterns = [
    path("tables/<int:table_id>/", views.table_page, name="table"),
]
