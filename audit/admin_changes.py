"""Staff edits made through the admin's own forms, each an audit record with before and after.

Tables, rake schedules, paytables, Showdown tables and user accounts are edited in the admin,
and auditors see each change with the values before and after it. The record is
written by the admin's log hooks, which run inside the same transaction as the save, so a save
that fails leaves no record. The values before are read when the admin loads the object.
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin.models import ADDITION, CHANGE, DELETION
from django.core.serializers.json import DjangoJSONEncoder

from audit.services import audit_record

HIDDEN = "(hidden)"
SECRET_FIELDS = {"password"}


def field_values(obj) -> dict[str, Any]:
    """A row's stored fields as JSON-safe values (secrets masked)."""
    encoder = DjangoJSONEncoder()
    values = {}
    for field in obj._meta.concrete_fields:
        value = field.value_from_object(obj)
        if field.name in SECRET_FIELDS:
            value = HIDDEN if value else ""
        elif not isinstance(value, str | int | float | bool | type(None) | dict | list):
            value = encoder.default(value)
        values[field.attname] = value
    return values


class AuditedChanges:
    """ModelAdmin mixin: add, change and delete through the admin each leave one record."""

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            request._audit_before = field_values(obj)
        return obj

    def _audit(self, request, obj, flag: int, before: dict | None) -> None:
        after = None if flag == DELETION else field_values(obj)
        changed = sorted(
            key
            for key in (after or before or {})
            if (before or {}).get(key) != (after or {}).get(key)
        )
        action = {ADDITION: "staff.admin_add", CHANGE: "staff.admin_change"}.get(
            flag, "staff.admin_delete"
        )
        audit_record(
            action=action,
            actor=request.user,
            subject=obj,
            payload={
                "model": obj._meta.label,
                "before": before,
                "after": after,
                "changed": changed,
            },
        )

    def log_addition(self, request, obj, message):
        self._audit(request, obj, ADDITION, None)
        return super().log_addition(request, obj, message)

    def log_change(self, request, obj, message):
        self._audit(request, obj, CHANGE, getattr(request, "_audit_before", None))
        return super().log_change(request, obj, message)

    def log_deletions(self, request, queryset):
        for obj in queryset:
            self._audit(request, obj, DELETION, field_values(obj))
        return super().log_deletions(request, queryset)
