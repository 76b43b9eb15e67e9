"""Admin pieces shared by every app."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Staff may look, never add, edit or delete: these rows change only through services
    (the ledger, the table lock, the responsible-gaming rules) or not at all."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
