"""Staff views of tables, rake schedules, seats, hands and cancelled-hand incidents.

Seats and hands change only through poker/services.py (the table lock, the cashier): here they
are read-only, so staff can look but never edit a live hand or move chips by hand.
"""

from django.contrib import admin

from poker.models import Hand, HandIncident, RakeSchedule, Seat, Table


@admin.register(RakeSchedule)
class RakeScheduleAdmin(admin.ModelAdmin):
    list_display = ("name",)
    search_fields = ("name",)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ("number", "player", "status", "connected", "sat_out_at", "missed_big_blind")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "structure", "stakes_label", "max_seats", "is_open")
    list_filter = ("game", "structure", "is_open")
    search_fields = ("name",)
    readonly_fields = ("button_seat", "big_blind_seat", "last_hand_players",
                       "last_hand_ended_at", "version")  # fmt: skip
    inlines = [SeatInline]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "player", "status", "connected", "sat_out_at")
    list_filter = ("status", "connected")
    search_fields = ("table__name", "player__username")


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "number", "status", "turn", "started_at", "ended_at")
    list_filter = ("status",)
    search_fields = ("table__name",)
    exclude = ("deck",)  # even staff pages do not show a running hand's deck


@admin.register(HandIncident)
class HandIncidentAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table", "hand", "code", "reason")
    list_filter = ("code",)
    search_fields = ("table__name", "reason")
