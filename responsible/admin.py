"""Staff see every limit, exclusion and change; nobody edits or deletes them here. Staff
allowed to publish a new version of the terms or fair-play policy do it here (audited)."""

from django import forms
from django.contrib import admin

from config.admin import ReadOnlyAdmin, RoomAdmin, money
from responsible.models import (
    DepositLimit,
    Exclusion,
    LossLimit,
    PlaySession,
    RealityCheck,
    ResponsibleGamingEvent,
    SessionLimit,
    TermsAcceptance,
    TermsVersion,
)
from responsible.services import terms_publish


@admin.register(DepositLimit)
class DepositLimitAdmin(ReadOnlyAdmin):
    """Deposit caps; `LossLimitAdmin` shows the loss caps the same way."""

    list_display = ("player", "period", "limit", "pending_limit", "pending_from", "updated_at")
    list_filter = ("period",)
    search_fields = ("player__username",)
    fields = ("player", "period", "limit", "pending_limit", "pending_from", "updated_at")
    readonly_fields = fields

    @admin.display(description="limit", ordering="amount")
    def limit(self, obj: DepositLimit) -> str:
        return money(obj.amount) or "none"

    @admin.display(description="pending limit")
    def pending_limit(self, obj: DepositLimit) -> str:
        return (money(obj.pending_amount) or "none") if obj.pending_from else ""


@admin.register(LossLimit)
class LossLimitAdmin(DepositLimitAdmin):
    pass


@admin.register(SessionLimit)
class SessionLimitAdmin(ReadOnlyAdmin):
    """Session length caps in minutes (in force, and a raise waiting its 24 hours)."""

    list_display = ("player", "minutes", "pending_minutes", "pending_from", "updated_at")
    search_fields = ("player__username",)
    fields = ("player", "minutes", "pending_minutes", "pending_from", "updated_at")
    readonly_fields = fields

    @admin.display(description="minutes", ordering="amount")
    def minutes(self, obj: SessionLimit) -> str:
        return "none" if obj.amount is None else str(obj.amount)

    @admin.display(description="pending minutes")
    def pending_minutes(self, obj: SessionLimit) -> str:
        if not obj.pending_from:
            return ""
        return "none" if obj.pending_amount is None else str(obj.pending_amount)


@admin.register(PlaySession)
class PlaySessionAdmin(ReadOnlyAdmin):
    """Each player's current or last play session (what a session limit measures)."""

    list_display = ("player", "started_at", "last_play_at", "limit_reached_at")
    search_fields = ("player__username",)


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "starts_at", "ends_at")
    list_filter = ("kind",)
    search_fields = ("player__username",)


@admin.register(RealityCheck)
class RealityCheckAdmin(ReadOnlyAdmin):
    list_display = ("player", "interval_minutes")


@admin.register(ResponsibleGamingEvent)
class ResponsibleGamingEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "player", "kind", "detail")
    list_filter = ("kind",)
    search_fields = ("player__username",)


class TermsVersionForm(forms.ModelForm):
    reason = forms.CharField(
        max_length=500, help_text="why this version (kept in the audit log)", required=True
    )

    class Meta:
        model = TermsVersion
        fields = ("kind", "title", "body")


@admin.register(TermsVersion)
class TermsVersionAdmin(RoomAdmin):
    """Staff holding `add_termsversion` (superusers: no role has it) publish the next version
    of a document through `terms_publish`; a published version is never edited or deleted."""

    form = TermsVersionForm
    list_display = ("kind", "version", "title", "published_at", "published_by", "accepted")
    list_filter = ("kind",)
    readonly_fields = ("version", "published_at", "published_by")

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("kind", "title", "body", "reason")
        return ("kind", "version", "title", "body", "published_at", "published_by")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("kind", "version", "title", "body", "published_at", "published_by")

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="accepted by")
    def accepted(self, obj: TermsVersion) -> int:
        return obj.acceptances.count()

    def save_model(self, request, obj, form, change) -> None:
        # The form checked the kind, the title and the text, as the service does.
        version = terms_publish(
            staff=request.user,
            kind=form.cleaned_data["kind"],
            title=form.cleaned_data["title"],
            body=form.cleaned_data["body"],
            reason=form.cleaned_data["reason"],
        )
        obj.pk, obj.version, obj.published_at = version.pk, version.version, version.published_at
        obj.published_by = version.published_by
        obj._state.adding = False


@admin.register(TermsAcceptance)
class TermsAcceptanceAdmin(ReadOnlyAdmin):
    list_display = ("accepted_at", "player", "terms")
    list_filter = ("terms__kind",)
    search_fields = ("player__username",)
