from django.urls import path

from responsible import api

urlpatterns = [
    path("", api.SummaryView.as_view(), name="api-responsible"),
    path("limits/", api.LimitView.as_view(), name="api-responsible-limits"),
    path("loss-limits/", api.LossLimitView.as_view(), name="api-responsible-loss-limits"),
    path("session-limit/", api.SessionLimitView.as_view(), name="api-responsible-session-limit"),
    path("exclusion/", api.ExclusionView.as_view(), name="api-responsible-exclusion"),
    path("terms/", api.TermsView.as_view(), name="api-responsible-terms"),
    path("reality-check/", api.RealityCheckView.as_view(), name="api-responsible-reality-check"),
]
