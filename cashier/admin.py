"""The ledger in the admin: visible to staff with view rights, never editable from here.

Money moves only through the services (corrections are new entries), so the admin offers no
add, change or delete for accounts, entries or postings.
"""

from django.contrib import admin

from cashier.models import Account, Entry, Posting
from config.admin import ReadOnlyAdmin


class PostingInline(admin.TabularInline):
    model = Posting
    fields = ["account", "amount"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "owner", "table", "balance", "in_hand_id", "created_at"]
    list_filter = ["kind"]
    search_fields = ["owner__username", "table__name"]
    list_select_related = ["owner", "table"]


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "reason", "player", "table", "hand_id", "created_by"]
    list_filter = ["reason"]
    search_fields = ["player__username", "idempotency_key", "memo", "hand_id"]
    list_select_related = ["player", "table", "created_by"]
    date_hierarchy = "created_at"
    inlines = [PostingInline]


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ["id", "entry", "account", "amount"]
    list_filter = ["account__kind"]
    list_select_related = ["entry", "account", "account__owner", "account__table"]
