"""`manage.py check --deploy`: is the audit chain anchored outside the database?"""

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def audit_anchor_key_set(app_configs=None, **kwargs) -> list[Warning]:
    key = getattr(settings, "AUDIT_ANCHOR_KEY", "") or ""
    if len(key) >= 32:
        return []
    return [
        Warning(
            "AUDIT_ANCHOR_KEY is not set (or shorter than 32 characters): the audit chain's "
            "anchors go unsigned, so a kept anchor cannot prove it came from the room.",
            hint="Set it in the environment of the worker and web processes, never in the "
            "database (docs/operations.md, 'Anchoring the audit log').",
            id="audit.W001",
        )
    ]
