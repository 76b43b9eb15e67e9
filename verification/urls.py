from django.urls import path

from verification import views

app_name = "verification"

urlpatterns = [
    path("birth-date/", views.verification_birth_date, name="birth_date"),
    path("documents/", views.verification_upload, name="upload"),
    path("documents/<int:document_id>/file", views.document_file, name="document_file"),
]
