from django.urls import path

from notes import api

urlpatterns = [
    path("", api.NotesView.as_view(), name="api-notes"),
    path("palette/", api.PaletteView.as_view(), name="api-notes-palette"),
    path("<int:player_id>/", api.NoteView.as_view(), name="api-note"),
]
