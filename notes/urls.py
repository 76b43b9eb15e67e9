from django.urls import path

from notes import views

app_name = "notes"

urlpatterns = [
    path("", views.my_notes, name="my_notes"),
    path("save/", views.note_save, name="note_save"),
    path("palette/", views.palette_save, name="palette_save"),
    path("download/", views.notes_download, name="download"),
]
