from django.contrib import admin

from config.admin import RoomAdmin
from lobby.models import EmailVerification, Profile, WorkerHeartbeat


@admin.register(Profile)
class ProfileAdmin(RoomAdmin):
    list_display = ("display_name", "user", "created_at", "display_name_changed_at")
    search_fields = ("display_name", "user__username", "user__email")


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(RoomAdmin):
    list_display = ("hostname", "beat_at")
    readonly_fields = ("hostname", "beat_at")


@admin.register(EmailVerification)
class EmailVerificationAdmin(RoomAdmin):
    list_display = ("user", "email", "verified_at")
    search_fields = ("user__username", "email")
    readonly_fields = ("user", "email", "verified_at")
