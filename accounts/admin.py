from django.contrib import admin

from accounts.models import EmailVerification, Profile
from config.admin import RoomAdmin


@admin.register(Profile)
class ProfileAdmin(RoomAdmin):
    list_display = ("display_name", "user", "created_at", "display_name_changed_at")
    search_fields = ("display_name", "user__username", "user__email")


@admin.register(EmailVerification)
class EmailVerificationAdmin(RoomAdmin):
    list_display = ("user", "email", "verified_at")
    search_fields = ("user__username", "email")
    readonly_fields = ("user", "email", "verified_at")
