from django.urls import path

from responsible import views

app_name = "responsible"

urlpatterns = [
    path("limits/", views.limit_set, name="limit_set"),
    path("loss-limits/", views.loss_limit, name="loss_limit"),
    path("session-limit/", views.session_limit, name="session_limit"),
    path("exclusion/", views.exclusion, name="exclusion"),
    path("reality-check/", views.reality_check, name="reality_check"),
    path("terms/", views.terms_document, {"kind": "terms"}, name="terms"),
    path("terms/accept/", views.terms_accept_page, name="terms_accept"),
    path("fair-play/", views.terms_document, {"kind": "fair_play"}, name="fair_play"),
]
