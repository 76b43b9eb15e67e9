"""The audit log in the admin: read-only for everyone (the database refuses changes anyway),
filtered by action family, actor kind, actor and date, searchable; and the daily verification
runs (verify_ledger, verify_audit) on a page of their own."""

from __future__ import annotations

import json

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from rest_framework.authtoken.models import TokenProxy

from audit.admin_changes import AuditedChanges
from audit.models import AuditRecord, VerificationRun
from config.admin import ReadOnlyAdmin, declare_lookups_everywhere


class ActionFamilyFilter(admin.SimpleListFilter):
    title = "action family"
    parameter_name = "family"

    def lookups(self, request, model_admin):
        return [
            ("ledger", "ledger entries"),
            ("staff", "staff actions"),
            ("security", "security events"),
            ("table", "table incidents"),
            ("rng", "RNG checks"),
            ("responsible", "responsible gaming"),
            ("verify", "daily verifications"),
        ]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(action__startswith=self.value() + ".")
        return queryset


def _subject_link(record: AuditRecord) -> str:
    if not record.subject_type:
        return "-"
    text = f"{record.subject_type} #{record.subject_id} {record.subject_label}".strip()
    app_label, _, model = record.subject_type.partition(".")
    try:
        url = reverse(f"admin:{app_label}_{model}_change", args=[record.subject_id])
    except NoReverseMatch:
        return text
    return format_html('<a href="{}">{}</a>', url, text)


@admin.register(AuditRecord)
class AuditRecordAdmin(ReadOnlyAdmin):
    list_display = ["seq", "created_at", "action", "actor_shown", "subject_shown", "reason_short"]
    list_filter = [
        ActionFamilyFilter,
        "actor_kind",
        ("actor", admin.RelatedOnlyFieldListFilter),
        "created_at",
    ]
    date_hierarchy = "created_at"
    search_fields = [
        "action",
        "actor_label",
        "subject_type",
        "subject_id",
        "subject_label",
        "reason",
    ]
    list_select_related = ["actor"]
    show_full_result_count = False
    fields = [
        "seq",
        "created_at",
        "action",
        "actor_shown",
        "subject_shown",
        "reason",
        "payload_shown",
        "content_hash",
        "prev_hash",
        "hash",
    ]
    readonly_fields = fields

    @admin.display(description="actor", ordering="actor_label")
    def actor_shown(self, record: AuditRecord) -> str:
        return (
            f"{record.actor_label} ({record.actor_kind})"
            if record.actor_label
            else record.actor_kind
        )

    @admin.display(description="subject")
    def subject_shown(self, record: AuditRecord) -> str:
        return _subject_link(record)

    @admin.display(description="reason")
    def reason_short(self, record: AuditRecord) -> str:
        return record.reason if len(record.reason) <= 80 else record.reason[:77] + "..."

    @admin.display(description="payload")
    def payload_shown(self, record: AuditRecord) -> str:
        return format_html(
            "<pre>{}</pre>",
            json.dumps(record.payload, indent=2, sort_keys=True, ensure_ascii=False),
        )


@admin.register(VerificationRun)
class VerificationRunAdmin(ReadOnlyAdmin):
    """The daily verify_ledger and verify_audit results (Celery beat, audit.verify_daily)."""

    list_display = ["created_at", "check_name", "ok", "summary"]
    list_filter = ["action", "created_at"]
    date_hierarchy = "created_at"
    fields = ["created_at", "check_name", "ok", "summary", "problems"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).filter(action__startswith="verify.")

    @admin.display(description="check", ordering="action")
    def check_name(self, record: AuditRecord) -> str:
        return {"verify.ledger": "verify_ledger", "verify.audit": "verify_audit"}.get(
            record.action, record.action
        )

    @admin.display(description="passed", boolean=True)
    def ok(self, record: AuditRecord) -> bool:
        return bool(record.payload.get("ok"))

    @admin.display(description="checked")
    def summary(self, record: AuditRecord) -> str:
        payload = record.payload
        if record.action == "verify.ledger":
            return (
                f"{payload.get('entries', 0)} entries, {payload.get('postings', 0)} postings, "
                f"{payload.get('accounts', 0)} accounts; "
                f"{payload.get('problem_count', 0)} problem(s)"
            )
        return (
            f"{payload.get('records', 0)} records up to seq {payload.get('head_seq', 0)}; "
            f"first broken: {payload.get('first_broken') or 'none'}"
        )

    @admin.display(description="problems")
    def problems(self, record: AuditRecord) -> str:
        return format_html("<pre>{}</pre>", "\n".join(record.payload.get("problems", [])) or "none")


# Accounts edited by staff (names, e-mail, staff flags, groups) are audited like the room's own
# models (audit/admin_changes.py); the password's hash never enters a record.
_user_model = get_user_model()
if admin.site.is_registered(_user_model):
    _UserAdmin = type(admin.site._registry[_user_model])
    admin.site.unregister(_user_model)
    admin.site.register(_user_model, type("AuditedUserAdmin", (AuditedChanges, _UserAdmin), {}))


class _KeylessToken:
    """What the admin log writes for an API token: its model and id (the owner's), and a
    name that is not the key (a token's `str()` is its key)."""

    def __init__(self, token) -> None:
        self._meta = token._meta
        self.pk = token.pk
        self.user = token.user

    def __str__(self) -> str:
        return f"API token of {self.user}"


class KeylessAdminLog:
    """ModelAdmin mixin for API tokens: `django_admin_log` never holds a token's key."""

    def log_addition(self, request, obj, message):
        return super().log_addition(request, _KeylessToken(obj), message)

    def log_change(self, request, obj, message):
        return super().log_change(request, _KeylessToken(obj), message)

    def log_deletions(self, request, queryset):
        return super().log_deletions(request, [_KeylessToken(obj) for obj in queryset])


if admin.site.is_registered(TokenProxy):
    _TokenAdmin = type(admin.site._registry[TokenProxy])
    admin.site.unregister(TokenProxy)
    admin.site.register(TokenProxy, type("KeylessTokenAdmin", (KeylessAdminLog, _TokenAdmin), {}))

# Django's and third-party admins registered so far (groups, API tokens, axes) filter only by
# what they declare, like the room's own (config/admin.py); the room's apps come after audit.
declare_lookups_everywhere(admin.site)
