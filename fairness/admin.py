"""Staff see commitments, and a deal's secrets only once it is revealed (never a running
deal's: the salt and server seed would let anyone holding them rebuild the cards to come)."""

from django.contrib import admin

from config.admin import ReadOnlyAdmin
from fairness.models import ClientSeed, Commitment

HIDDEN = "(secret until the deal is over)"


@admin.register(Commitment)
class CommitmentAdmin(ReadOnlyAdmin):
    list_display = ("kind", "ref_id", "commitment", "created_at", "revealed_at")
    list_filter = ("kind",)
    search_fields = ("=ref_id", "=commitment")
    fields = (
        "kind",
        "ref_id",
        "commitment",
        "created_at",
        "revealed_at",
        "players",
        "shown_salt",
        "shown_server_seed",
        "shown_client_seeds",
    )
    readonly_fields = fields

    @admin.display(description="salt")
    def shown_salt(self, obj: Commitment) -> str:
        return obj.salt if obj.revealed_at else HIDDEN

    @admin.display(description="server seed")
    def shown_server_seed(self, obj: Commitment) -> str:
        return obj.server_seed if obj.revealed_at else HIDDEN

    @admin.display(description="client seeds")
    def shown_client_seeds(self, obj: Commitment) -> object:
        return obj.client_seeds if obj.revealed_at else HIDDEN


@admin.register(ClientSeed)
class ClientSeedAdmin(ReadOnlyAdmin):
    list_display = ("player", "chosen", "updated_at")
    fields = ("player", "chosen", "updated_at")
    readonly_fields = fields
