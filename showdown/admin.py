"""Staff pages for the banked game: paytables (edited, checked by the engine's rules and
stored with their exact edge), tables, rounds (read-only; the deck only once settled) and the
house's result per day."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html

from audit.admin_changes import AuditedChanges
from config.admin import RoomAdmin
from config.inputs import dollars
from showdown import selectors
from showdown.models import (
    HouseDay,
    LiveRound,
    LiveSeat,
    Paytable,
    ShowdownRound,
    ShowdownTable,
)
from showdown.services import paytable_measure


class PaytableForm(forms.ModelForm):
    class Meta:
        model = Paytable
        fields = ("kind", "name", "pays")

    def clean(self):
        cleaned = super().clean()
        candidate = Paytable(
            kind=cleaned.get("kind"), name=cleaned.get("name") or "", pays=cleaned.get("pays")
        )
        try:
            candidate.engine()
        except ValueError as error:
            raise ValidationError({"pays": str(error)}) from error
        return cleaned


@admin.register(Paytable)
class PaytableAdmin(AuditedChanges, RoomAdmin):
    form = PaytableForm
    list_display = ("name", "kind", "edge_percent", "hit_rate", "top_award", "updated_at")
    list_filter = ("kind",)
    search_fields = ("name",)
    readonly_fields = ("edge", "edge_pct", "hit_rate_pct", "updated_at")

    @admin.display(description="house edge")
    def edge_percent(self, obj: Paytable) -> str:
        return f"{obj.edge_pct:.4f}%" if obj.edge_pct is not None else "-"

    @admin.display(description="hit rate")
    def hit_rate(self, obj: Paytable) -> str:
        return f"{obj.hit_rate_pct:.3f}%" if obj.hit_rate_pct is not None else "-"

    @admin.display(description="top award")
    def top_award(self, obj: Paytable) -> str:
        return f"{max(obj.pays.values(), default=0)} to 1"

    def save_model(self, request, obj: Paytable, form, change) -> None:
        # The form has checked it; the service computes and stores the exact edge with it.
        paytable_measure(paytable=obj)


MIN_LIVE_SECONDS = 5  # the betting window and the time to decide, as a poker table's turn
MIN_AWAY_SECONDS = 30  # away before standing up: a reloaded page must not lose its seat


class ShowdownTableForm(forms.ModelForm):
    """A live table's edit must fit the players at it (as for poker tables):
    no fewer seats than the highest seat taken, no turning it into the online one-seat game
    while anyone sits or a round is open (the round's deadlines would then find no live table
    and its wagers stay in play), at least MIN_LIVE_SECONDS for each window and
    MIN_AWAY_SECONDS before an away seat stands up. Limits and paytables may change: a round
    keeps those it was opened with, so they apply from the next round."""

    class Meta:
        model = ShowdownTable
        fields = ("name", "ante_min", "ante_max", "hole_card_bonus_min", "hole_card_bonus_max",
                  "final_hand_bonus_min", "final_hand_bonus_max", "max_aggregate_payout",
                  "bet_paytable", "hole_card_bonus_paytable", "final_hand_bonus_paytable",
                  "is_open", "seats", "bet_seconds", "action_seconds",
                  "away_limit_seconds")  # fmt: skip

    def clean(self):
        cleaned = super().clean()
        seats = cleaned.get("seats")
        if seats is not None and seats > 1:
            for name in ("bet_seconds", "action_seconds"):
                value = cleaned.get(name)
                if value is not None and value < MIN_LIVE_SECONDS:
                    self.add_error(name, f"At least {MIN_LIVE_SECONDS} seconds at a live table.")
            away = cleaned.get("away_limit_seconds")
            if away is not None and away < MIN_AWAY_SECONDS:
                self.add_error(
                    "away_limit_seconds", f"At least {MIN_AWAY_SECONDS} seconds at a live table."
                )
        table = self.instance
        if table.pk is None or seats is None:
            return cleaned
        # The table's lock (the live services take it too), held until the edit is saved.
        ShowdownTable.objects.select_for_update().filter(pk=table.pk).exists()
        taken = sorted(LiveSeat.objects.filter(table=table).values_list("number", flat=True))
        playing = (
            LiveRound.objects.filter(table=table).exclude(phase=LiveRound.Phase.SETTLED).exists()
        )
        if seats < 2 and (taken or playing):
            self.add_error(
                "seats",
                "Players sit here or a round is open: it stays a live table until they have "
                "left (close it first).",
            )
        elif taken and seats < taken[-1]:
            self.add_error(
                "seats",
                f"Players sit in seats {', '.join(map(str, taken))}: at least {taken[-1]} seats "
                "while they are seated.",
            )
        return cleaned


@admin.register(ShowdownTable)
class ShowdownTableAdmin(AuditedChanges, RoomAdmin):
    form = ShowdownTableForm
    list_display = ("name", "ante_range", "cap", "bet_paytable", "hole_card_bonus_paytable",
                    "final_hand_bonus_paytable", "seats", "is_open")  # fmt: skip
    list_filter = ("is_open", "seats")
    search_fields = ("name",)

    # A new table starts with the room's default paytables, as the seeded
    # "Showdown" table plays: staff change them on purpose, never leave them to be picked.
    DEFAULT_PAYTABLES = (
        ("bet_paytable", Paytable.Kind.BET, "bet"),
        ("hole_card_bonus_paytable", Paytable.Kind.HOLE_CARD_BONUS, "hcb-a"),
        ("final_hand_bonus_paytable", Paytable.Kind.FINAL_HAND_BONUS, "fhb-a"),
    )

    def get_changeform_initial_data(self, request) -> dict:
        initial = super().get_changeform_initial_data(request)
        for field, kind, name in self.DEFAULT_PAYTABLES:
            chosen = Paytable.objects.filter(kind=kind, name=name).values_list("pk", flat=True)
            if field not in initial and chosen:
                initial[field] = chosen[0]
        return initial

    @admin.display(description="ante")
    def ante_range(self, obj: ShowdownTable) -> str:
        return f"{dollars(obj.ante_min)} to {dollars(obj.ante_max)}"

    @admin.display(description="max aggregate payout")
    def cap(self, obj: ShowdownTable) -> str:
        return dollars(obj.max_aggregate_payout) if obj.max_aggregate_payout else "none"


@admin.register(ShowdownRound)
class ShowdownRoundAdmin(RoomAdmin):
    """Read-only. The deck is never a field here: an unsettled round's cards to come would
    tell staff the board; once settled the board is in the result anyway."""

    list_display = ("id", "player", "table", "status", "staked_dollars", "net_dollars",
                    "payout_capped", "created_at", "settled_at")  # fmt: skip
    list_filter = ("status", "table", "payout_capped")
    search_fields = ("player__username", "table__name")
    date_hierarchy = "created_at"
    fields = ("player", "table", "status", "ante", "hole_card_bonus", "final_hand_bonus",
              "bet", "staked", "decision", "net", "payout_capped", "cards", "created_at",
              "settled_at", "voided_at", "void_told_at", "wager_entry", "bet_entry",
              "result_entry")  # fmt: skip
    readonly_fields = fields

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        # No URL filter on the stored cards (?deck__0=As would tell which round holds it).
        if lookup.split("__")[0] in {"deck", "state", "result"}:
            return False
        return super().lookup_allowed(lookup, value, request)

    @admin.display(description="staked")
    def staked_dollars(self, obj: ShowdownRound) -> str:
        return dollars(obj.staked)

    @admin.display(description="player's net")
    def net_dollars(self, obj: ShowdownRound) -> str:
        return dollars(obj.net) if obj.net is not None else "-"

    @admin.display(description="cards")
    def cards(self, obj: ShowdownRound) -> str:
        # Like a running ring-game hand: no card of a round still in play, hole cards included.
        if obj.status == ShowdownRound.Status.DEALT:
            return "not shown while the round waits for the player's decision"
        hole = " ".join(obj.hole)
        if obj.status == ShowdownRound.Status.VOIDED:
            return f"hole {hole}; voided before the board was dealt"
        seat = obj.seat_result or {}
        final = (seat.get("final_hand") or {}).get("name", "")
        return format_html("hole {}; board {}; {}", hole, " ".join(obj.board), final)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(HouseDay)
class HouseDayAdmin(RoomAdmin):
    """The house's result per UTC day: settled rounds, stakes, what the house won or paid,
    rounds capped by the maximum aggregate payout; and voids to charity.

    The report is its only page. A proxy of ShowdownRound would otherwise get Django's
    read-only change page per round, showing every stored field: a dealt round's deck and a
    running live seat's hole cards among them (the rounds' own admin hides them)."""

    def get_urls(self):
        opts = self.model._meta
        view = self.admin_site.admin_view(self.changelist_view)
        return [path("", view, name=f"{opts.app_label}_{opts.model_name}_changelist")]

    def changelist_view(self, request, extra_context=None):
        days = [{**day, "house_net": -day["players_net"]} for day in selectors.house_days()]
        context = {
            **self.admin_site.each_context(request),
            "title": "House result per day (Omaha Showdown)",
            "opts": self.model._meta,
            "days": days,
            "voids": list(selectors.void_days()),
            "total": sum(day["house_net"] for day in days),
        }
        return TemplateResponse(request, "admin/showdown/house_days.html", context)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
