"""Staff see every limit, exclusion and change; nobody edits or deletes them here."""

from django.contrib import admin

from config.admin import ReadOnlyAdmin, money
from responsible.models import DepositLimit, Exclusion, RealityCheck, ResponsibleGamingEvent


@admin.register(DepositLimit)
class DepositLimitAdmin(ReadOnlyAdmin):
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
