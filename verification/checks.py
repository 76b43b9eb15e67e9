"""`manage.py check`: identity documents must not be kept where a web server serves files."""

from pathlib import Path

from django.conf import settings
from django.core.checks import Error, register


@register()
def documents_outside_the_web_root(app_configs=None, **kwargs) -> list[Error]:
    documents = Path(settings.VERIFICATION_STORAGE_DIR).resolve()
    served = [settings.STATIC_ROOT, *settings.STATICFILES_DIRS, settings.MEDIA_ROOT]
    for folder in filter(None, served):
        folder = Path(folder).resolve()
        if documents.is_relative_to(folder) or folder.is_relative_to(documents):
            return [
                Error(
                    f"VERIFICATION_STORAGE_DIR ({documents}) overlaps {folder}, which is "
                    "served as static or media files: identity documents would be public.",
                    hint="Keep it outside every served folder (default var/verification).",
                    id="verification.E001",
                )
            ]
    return []
