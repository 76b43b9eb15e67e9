"""Top-level URL map: pages, the REST API with its OpenAPI schema, admin, health."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils import timezone
from django.views.decorators.http import last_modified
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from accounts.views import set_language
from config.health import healthz
from config.i18n import LanguageCatalog
from histories import api as histories_api

CATALOGUE_LOADED_AT = timezone.now()

urlpatterns = [
    path("", include("lobby.urls")),
    path("", include("poker.urls")),
    path("showdown/", include("showdown.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever the page says: send them to the room's icon.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    # The language selector's form posts here; pages' scripts load their strings from
    # jsi18n/<language>/, one address per language (a browser keeps what it fetched).
    path("i18n/setlang/", set_language, name="set_language"),
    # The catalogue changes only with a deploy: browsers revalidate it and get a 304.
    path(
        "jsi18n/<str:language>/",
        last_modified(lambda request, **kwargs: CATALOGUE_LOADED_AT)(LanguageCatalog.as_view()),
        name="javascript-catalog",
    ),
    path("api/accounts/", include("lobby.api_urls")),
    path("cashier/", include("cashier.urls")),
    path("api/cashier/", include("cashier.api_urls")),
    path("verification/", include("verification.urls")),
    # Beside the ledger's exports, served by the app that owns hands (the cashier is below it).
    path(
        "api/cashier/audit/hands/ohh/",
        histories_api.HandsAuditOhhView.as_view(),
        name="audit-hands-ohh",
    ),
    path(
        "api/cashier/audit/hands/",
        histories_api.HandsAuditExportView.as_view(),
        name="audit-hands",
    ),
    path("api/showdown/", include("showdown.api_urls")),
    path("tournaments/", include("tournaments.urls")),
    path("api/tournaments/", include("tournaments.api_urls")),
    path("responsible/", include("responsible.urls")),
    path("api/responsible/", include("responsible.api_urls")),
    path("fairness/", include("fairness.urls")),
    path("api/fairness/", include("fairness.api_urls")),
    path("hands/", include("histories.urls")),
    path("api/hands/", include("histories.api_urls")),
    path("notes/", include("notes.urls")),
    path("api/notes/", include("notes.api_urls")),
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
