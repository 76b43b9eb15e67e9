"""Top-level URL map: pages, the REST API with its OpenAPI schema, admin, health."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from config.health import healthz

urlpatterns = [
    path("", include("lobby.urls")),
    path("", include("poker.urls")),
    path("showdown/", include("showdown.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/accounts/", include("lobby.api_urls")),
    path("cashier/", include("cashier.urls")),
    path("api/cashier/", include("cashier.api_urls")),
    path("api/showdown/", include("showdown.api_urls")),
    path("responsible/", include("responsible.urls")),
    path("api/responsible/", include("responsible.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path(
        "api/redoc/",
        # Our template drops drf-spectacular's Google Fonts links: the docs load nothing from
        # another host (Swagger UI and ReDoc come from drf-spectacular-sidecar).
        SpectacularRedocView.as_view(url_name="api-schema", template_name="api/redoc.html"),
        name="api-redoc",
    ),
]
