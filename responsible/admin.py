"""Staff see every limit, exclusion and change; nobody edits or deletes them here."""

from django.contrib import admin

from config.admin import ReadOnlyAdmin
from responsible.models import DepositLimit, Exclusion, RealityCheck, ResponsibleGamingEvent


@admin.register(DepositLimit)
class DepositLimitAdmin(ReadOnlyAdmin):
    list_display = ("player", "period", "amount", "pending_amount", "pending_from", "updated_at")
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
