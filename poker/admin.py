"""Staff views of tables (with their waiting lists), rake schedules, seats, hands and
cancelled-hand incidents.

Seats and hands change only through poker/services/ (the table lock, the cashier): here they
are read-only, so staff can look but never edit a live hand or move chips by hand. A running
hand's hole cards and deck appear nowhere here (its page, the list, search or URL filters).
"""

from django.contrib import admin
from django.db.models.constants import LOOKUP_SEP
from django.utils.html import format_html, format_html_join

from audit.admin_changes import AuditedChanges
from config.admin import ReadOnlyAdmin, RoomAdmin, money
from poker.admin_tools import (
    BarTools,
    ChatTools,
    HandTools,
    SeatTools,
    TableMoneyForm,
    TableTools,
    WaitingTools,
)
from poker.models import (
    ChatMessage,
    Hand,
    HandIncident,
    RakeSchedule,
    RngCheck,
    Seat,
    Table,
    TableBar,
    WaitingEntry,
)
from poker.selectors import hand_history, waiting_position


@admin.register(RakeSchedule)
class RakeScheduleAdmin(AuditedChanges, RoomAdmin):
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


class WaitingInline(admin.TabularInline):
    """The table's waiting list in order; each entry's page has the staff's tools (remove,
    move, offer a seat: poker/admin_tools.py)."""

    model = WaitingEntry
    extra = 0
    can_delete = False
    fields = ("player", "joined_at", "offer_expires_at")
    readonly_fields = fields
    verbose_name_plural = "waiting list"
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(AuditedChanges, TableTools, RoomAdmin):
    form = TableMoneyForm  # stakes in dollars and cents
    list_display = ("name", "game", "structure", "stakes_label", "buy_in_range", "max_seats",
                    "is_open")  # fmt: skip
    list_filter = ("game", "structure", "is_open")
    search_fields = ("name",)
    readonly_fields = ("button_seat", "big_blind_seat", "last_hand_players",
                       "last_hand_ended_at", "next_hand_at", "version")  # fmt: skip
    inlines = [SeatInline, WaitingInline]

    def save_model(self, request, obj, form, change) -> None:
        """An edit writes only the fields the form changed. The row was read when the page
        was posted, and a hand moving on since (the button, the next hand's time, the version
        and lease that fence the processes' copies of the table) must not be written back
        stale: a stale version and lease would let a process recall seats and a hand that
        are no longer the table's. The form's check holds the table's lock (TableMoneyForm)."""
        if not change:
            return super().save_model(request, obj, form, change)
        stored = {field.name for field in Table._meta.concrete_fields}
        obj.save(update_fields=[name for name in form.changed_data if name in stored])

    @admin.display(description="buy-in")
    def buy_in_range(self, table: Table) -> str:
        return f"{money(table.min_buy_in)} to {money(table.max_buy_in)}"


@admin.register(Seat)
class SeatAdmin(SeatTools, ReadOnlyAdmin):
    list_display = ("table", "number", "player", "status", "connected", "sat_out_at")
    list_filter = ("status", "connected", "table")
    search_fields = ("table__name", "player__username")


@admin.register(WaitingEntry)
class WaitingEntryAdmin(WaitingTools, ReadOnlyAdmin):
    """A player on a table's waiting list: changed only by the tools on its page."""

    list_display = ("table", "player", "joined_at", "offer_expires_at")
    list_filter = ("table",)
    search_fields = ("table__name", "player__username")
    fields = ("table", "player", "place", "joined_at", "offer_expires_at")
    readonly_fields = fields

    @admin.display(description="place in the list")
    def place(self, entry: WaitingEntry) -> int | None:
        return waiting_position(table=entry.table, player=entry.player)


@admin.register(TableBar)
class TableBarAdmin(BarTools, ReadOnlyAdmin):
    """Players staff removed from a table, kept away until `until`: made only by "Remove the
    player" on a seat, lifted only by the tool on its page (both in the audit log)."""

    list_display = ("player", "table", "until", "in_force", "staff", "created_at", "lifted_at")
    list_filter = ("table",)
    search_fields = ("table__name", "player__username")
    date_hierarchy = "created_at"
    fields = ("table", "player", "until", "in_force", "staff", "reason", "created_at",
              "lifted_at", "lifted_by")  # fmt: skip
    readonly_fields = fields

    @admin.display(boolean=True, description="in force")
    def in_force(self, bar: TableBar) -> bool:
        return bar.is_active()


# The stored fields that hold cards: the deck, the engine's inputs and state, the showdown.
CARD_FIELDS = ("deck", "setup", "state", "result")


@admin.register(Hand)
class HandAdmin(HandTools, ReadOnlyAdmin):
    """Hands as staff may see them: a running hand's hole cards and deck never (DESIGN.md),
    a finished or cancelled one's whole history, hole cards included, as readable text."""

    list_display = ("id", "table", "number", "status", "turn", "started_at", "ended_at")
    list_filter = ("status", "table", "started_at")
    list_select_related = ("table",)
    search_fields = ("table__name",)  # and a player's exact username (HandTools)
    date_hierarchy = "started_at"
    # Listed, not excluded: a field added to Hand later stays off this page until named here.
    fields = ("table", "number", "status", "cancel_reason", "turn", "action_started_at",
              "deadline", "started_at", "ended_at", "history")  # fmt: skip
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).defer("deck", "setup")

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        """The list can be filtered by any local field from the URL, so `?deck__0=As` would
        tell staff which running hand holds the ace: never by the fields with cards."""
        if lookup.split(LOOKUP_SEP, 1)[0] in CARD_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)

    @admin.display(description="history")
    def history(self, hand: Hand) -> str:
        return format_html_join(
            "",
            "<h3>{}</h3><ul>{}</ul>",
            ((section["title"], _items(section["lines"])) for section in hand_history(hand)),
        )


def _items(lines: list[str]) -> str:
    return format_html_join("", "<li>{}</li>", ((line,) for line in lines))


@admin.register(ChatMessage)
class ChatMessageAdmin(ChatTools, ReadOnlyAdmin):
    """Table chat as written (escaped here as everywhere), removed lines included: staff read
    it and remove a line with a reason (ChatTools), never edit one."""

    list_display = ("created_at", "table", "seat", "player", "text", "removed_at")
    list_filter = ("table", ("removed_at", admin.EmptyFieldListFilter))
    list_select_related = ("table", "player")
    search_fields = ("text", "player__username", "table__name")
    date_hierarchy = "created_at"
    fields = ("table", "seat", "player", "text", "created_at", "removed_at", "removed_by",
              "removed_reason")  # fmt: skip
    readonly_fields = fields


@admin.register(HandIncident)
class HandIncidentAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table", "hand", "code", "reason")
    list_filter = ("code",)
    search_fields = ("table__name", "reason")


@admin.register(RngCheck)
class RngCheckAdmin(ReadOnlyAdmin):
    """RNG battery runs (`manage.py rng_check`, the daily task): a record, never edited."""

    list_display = ("started_at", "form", "passed", "shuffles", "raw_draws", "seconds")
    list_filter = ("passed", "form")
    fields = ("started_at", "form", "generator", "passed", "shuffles", "raw_draws", "alpha",
              "seconds", "statistics_table", "dieharder")  # fmt: skip
    readonly_fields = fields

    @admin.display(description="statistics")
    def statistics_table(self, check: RngCheck) -> str:
        return format_html(
            "<table><tr><th>statistic</th><th>value</th><th>df</th><th>p-values</th>"
            "<th>needs p at least</th><th>verdict</th><th>tests that</th></tr>{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                "<td>{}</td></tr>",
                (
                    (
                        s["name"],
                        f"{s['statistic']:,.2f}",
                        "" if s["df"] is None else s["df"],
                        " then ".join(f"{p:.6g}" for p in s["p_values"]),
                        f"{s['threshold']:.6f}",
                        "pass" if s["passed"] else "FAIL",
                        s["says"],
                    )
                    for s in check.statistics
                ),
            ),
        )
