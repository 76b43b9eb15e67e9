from django.urls import path

from poker import views

app_name = "poker"

urlpatterns = [
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("tables/<int:table_id>/waiting/", views.waiting_join, name="waiting_join"),
    path("tables/<int:table_id>/waiting/leave/", views.waiting_leave, name="waiting_leave"),
]
