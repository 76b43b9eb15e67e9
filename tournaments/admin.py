"""Staff pages for Sit & Gos: templates (edited here, checked, each change audited), the Sit &
Gos and their registrations (read-only: they change only through the services), and
cancelling one (four eyes when money goes back: asked for by one staff member, approved by
another)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.shortcuts import get_object_or_404
from django.urls import path, reverse

from audit.admin_changes import AuditedChanges
from config.admin import ReadOnlyAdmin, RoomAdmin, money, tool_view
from tournaments.models import Cancellation, Registration, Tournament, TournamentTemplate
from tournaments.services import (
    tournament_cancel_approve,
    tournament_cancel_reject,
    tournament_cancel_request,
    tournaments_open_missing,
)


class TournamentTemplateForm(forms.ModelForm):
    """The model's `clean` checks the blind structure, breaks and payouts (they are data);
    buy-in and fee are cents."""

    class Meta:
        model = TournamentTemplate
        fields = ("name", "game", "structure", "seats", "buy_in", "fee", "starting_chips",
                  "blind_levels", "breaks", "payouts", "action_seconds", "time_bank_seconds",
                  "is_active")  # fmt: skip
        help_texts = {
            "buy_in": "Cents, to the prize pool (1000 is $10.00).",
            "fee": "Cents, the house's (no rake in tournament hands).",
            "blind_levels": 'Chips: [{"small_blind": 10, "big_blind": 20, "ante": 0, '
            '"minutes": 5}, ...]; blinds never go down.',
            "breaks": '[{"after_level": 4, "minutes": 5}, ...] or [].',
            "payouts": '[{"min_entrants": 2, "max_entrants": 6, "percents": [65, 35]}, ...]: '
            "whole percents summing to 100, covering 2 to the seats.",
        }


@admin.register(TournamentTemplate)
class TournamentTemplateAdmin(AuditedChanges, RoomAdmin):
    """A saved active template gets its open Sit & Go at once; an edit changes the next Sit
    & Go, never one open or running (each copies the rules when it opens)."""

    form = TournamentTemplateForm
    list_display = ("name", "game", "structure", "seats", "buy_in_and_fee", "starting_chips",
                    "is_active")  # fmt: skip
    list_filter = ("game", "structure", "seats", "is_active")
    search_fields = ("name",)

    @admin.display(description="buy-in + fee")
    def buy_in_and_fee(self, template: TournamentTemplate) -> str:
        return f"{money(template.buy_in)} + {money(template.fee)}"

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        tournaments_open_missing()


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    can_delete = False
    fields = ("player", "status", "seat", "buy_in", "fee", "entry_id", "refund_entry_id",
              "registered_at", "ended_at")  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ("id", "template", "status", "seats", "buy_in_and_fee", "created_at",
                    "started_at", "ended_at")  # fmt: skip
    list_filter = ("status", "game", "structure", "seats")
    list_select_related = ("template",)
    date_hierarchy = "created_at"
    inlines = [RegistrationInline]

    @admin.display(description="buy-in + fee")
    def buy_in_and_fee(self, tournament: Tournament) -> str:
        return f"{money(tournament.buy_in)} + {money(tournament.fee)}"

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:tournament_id>/cancel/", tool(self.cancel_view),
                 name="tournaments_tournament_cancel"),
            *super().get_urls(),
        ]  # fmt: skip

    def change_view(self, request, object_id, form_url="", extra_context=None):
        tournament = self.get_object(request, object_id)
        can_cancel = (
            tournament is not None
            and tournament.status in (Tournament.Status.REGISTERING, Tournament.Status.RUNNING)
            and request.user.has_perm("tournaments.add_cancellation")
        )
        extra = {**(extra_context or {}), "can_cancel": can_cancel}
        return super().change_view(request, object_id, form_url, extra)

    def cancel_view(self, request, tournament_id: int):
        tournament = get_object_or_404(Tournament, pk=tournament_id)

        def act(cleaned: dict) -> str:
            cancellation = tournament_cancel_request(
                tournament=tournament, requested_by=request.user, reason=cleaned["reason"]
            )
            if cancellation is None:
                return f"Sit & Go #{tournament.pk} cancelled (nobody was registered)."
            return (
                f"Cancellation #{cancellation.pk} waits for another staff member's approval; "
                "the registered players are refunded once it is approved."
            )

        return tool_view(
            request, self, tournament, title=f"Cancel Sit & Go #{tournament.pk}",
            permission="tournaments.add_cancellation", act=act, button="Cancel the Sit & Go",
            intro="Every registered player gets their buy-in and fee back, once a second staff "
            "member approves (at once when nobody is registered).",
        )  # fmt: skip


@admin.register(Registration)
class RegistrationAdmin(ReadOnlyAdmin):
    list_display = ("id", "tournament", "player", "status", "seat", "registered_at", "ended_at")
    list_filter = ("status",)
    search_fields = ("player__username",)
    list_select_related = ("tournament", "tournament__template", "player")


@admin.register(Cancellation)
class CancellationAdmin(ReadOnlyAdmin):
    """Requests are made from a Sit & Go's page and decided here by someone else."""

    list_display = ("id", "tournament", "status", "requested_by", "requested_at", "decided_by",
                    "decided_at")  # fmt: skip
    list_filter = ("status",)
    list_select_related = ("tournament", "tournament__template", "requested_by", "decided_by")

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:cancellation_id>/approve/", tool(self.approve_view),
                 name="tournaments_cancellation_approve"),
            path("<int:cancellation_id>/reject/", tool(self.reject_view),
                 name="tournaments_cancellation_reject"),
            *super().get_urls(),
        ]  # fmt: skip

    def change_view(self, request, object_id, form_url="", extra_context=None):
        cancellation = self.get_object(request, object_id)
        can_decide = (
            cancellation is not None
            and cancellation.status == Cancellation.Status.PENDING
            and request.user.has_perm("tournaments.approve_cancellation")
            and cancellation.requested_by_id != request.user.pk
        )
        extra = {**(extra_context or {}), "can_decide": can_decide}
        return super().change_view(request, object_id, form_url, extra)

    def _decide(self, request, cancellation_id: int, *, approve: bool):
        cancellation = get_object_or_404(Cancellation, pk=cancellation_id)
        verb = "Approve" if approve else "Reject"

        def act(cleaned: dict) -> str:
            if approve:
                tournament_cancel_approve(
                    cancellation=cancellation, approved_by=request.user, reason=cleaned["reason"]
                )
                return f"Sit & Go #{cancellation.tournament_id} cancelled and refunded."
            tournament_cancel_reject(
                cancellation=cancellation, rejected_by=request.user, reason=cleaned["reason"]
            )
            return f"Cancellation #{cancellation.pk} rejected."

        return tool_view(
            request, self, cancellation, title=f"{verb} cancellation #{cancellation.pk}",
            permission="tournaments.approve_cancellation", act=act, button=verb,
            intro=f"Sit & Go #{cancellation.tournament_id}, asked for by "
            f"{cancellation.requested_by}: {cancellation.reason}",
            done_url=reverse("admin:tournaments_cancellation_changelist"),
        )  # fmt: skip

    def approve_view(self, request, cancellation_id: int):
        return self._decide(request, cancellation_id, approve=True)

    def reject_view(self, request, cancellation_id: int):
        return self._decide(request, cancellation_id, approve=False)
