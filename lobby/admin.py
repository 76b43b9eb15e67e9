from django.contrib import admin

from config.admin import RoomAdmin
from lobby.models import WorkerHeartbeat


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(RoomAdmin):
    list_display = ("hostname", "beat_at")
    readonly_fields = ("hostname", "beat_at")
