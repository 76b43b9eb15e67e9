from django.urls import path

from histories import export_views

urlpatterns = [
    path("download/", export_views.hands_download, name="hands_download"),
    path("<int:hand_id>/download/<str:fmt>/", export_views.hand_download, name="hand_download"),
]
