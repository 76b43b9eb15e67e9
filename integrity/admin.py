"""The integrity pages staff work from: the ranked review queue, runs, and cases.

- **Review queue** (`QueueEntry`): the newest nightly run's entries, collusion and bots, each
  ranked by its score (another run through the "run" filter); an entry's page lists its signals,
  each figure with the numbers and hands behind it, and "Open a case".
- **Cases**: the case's hands with every card (they are finished: `histories.record` with
  `all_cards`, which refuses a running hand), its signals, notes, and the tools: add a note,
  close with an outcome (cleared, warned, suspended with funds held).
- **Runs**: every run; "Run the checks for a player" runs them now for one player.

Only the integrity permissions open them (integrity/migrations/0002: "integrity officers");
every tool asks what it needs, calls one service (integrity/services.py) and is audited there.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from cashier.models import PendingWithdrawal
from config.admin import ReadOnlyAdmin, ReasonForm, money, tool_view
from histories.record import HandNotFound, hand_record
from integrity.models import Case, CaseNote, Queue, QueueEntry, Run, Signal
from integrity.services import (
    IntegrityRefused,
    case_close,
    case_note_add,
    case_open,
    integrity_run,
)

CASE_HANDS_SHOWN = 60  # hands on a case's page; the rest are listed by number


class _OnePlayer:
    """What the "run for a player" page is about, before a player is named."""

    def __str__(self) -> str:
        return "one player's finished hands"


ONE_PLAYER = _OnePlayer()


class NoteForm(forms.Form):
    text = forms.CharField(
        label="Note", widget=forms.Textarea(attrs={"rows": 4, "cols": 60}), max_length=4000
    )


class CloseForm(ReasonForm):
    outcome = forms.ChoiceField(choices=Case.Outcome.choices)
    suspend = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="For 'suspended': whom to suspend (no play, no withdrawal: funds held).",
    )


class PlayerForm(forms.Form):
    username = forms.CharField(max_length=150)


def _who(entry) -> str:
    if entry.partner_id:
        return f"{entry.player} and {entry.partner}"
    return str(entry.player)


def _signals_line(signals) -> str:
    return ", ".join(
        f"{signal.get_kind_display()} {signal.figure:g}" for signal in signals if signal.score > 0
    )


class RunFilter(admin.SimpleListFilter):
    """The run whose queue is shown: the newest nightly run unless another is chosen."""

    title = "run"
    parameter_name = "run"

    def lookups(self, request, model_admin):
        return [(str(run.pk), str(run)) for run in Run.objects.all()[:30]]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(run_id=self.value()) if self.value().isdigit() else queryset
        newest = Run.objects.filter(player__isnull=True).order_by("-started_at", "-id").first()
        return queryset.filter(run=newest) if newest else queryset.none()


@admin.register(QueueEntry)
class QueueEntryAdmin(ReadOnlyAdmin):
    """The ranked review queue: the newest nightly run's, unless a run is chosen."""

    list_display = ("rank", "queue", "subject", "score", "signals_found", "run", "case")
    list_filter = ("queue", RunFilter)
    search_fields = ("player__username", "partner__username")
    list_select_related = ("player", "partner", "run")
    ordering = ("queue", "rank")

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("signals", "cases")

    @admin.display(description="players")
    def subject(self, entry) -> str:
        return _who(entry)

    @admin.display(description="signals")
    def signals_found(self, entry) -> str:
        return _signals_line(entry.signals.all())

    @admin.display(description="case")
    def case(self, entry):
        case = next(iter(entry.cases.all()), None)
        if case is None:
            return ""
        url = reverse("admin:integrity_case_change", args=[case.pk])
        return format_html('<a href="{}">#{} {}</a>', url, case.pk, case.outcome or "open")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        entry = self.get_object(request, object_id)
        if entry is None:
            raise Http404("No such entry.")
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        open_case = Case.objects.filter(
            queue=entry.queue,
            player_id=entry.player_id,
            partner_id=entry.partner_id,
            closed_at__isnull=True,
        ).first()
        context = {
            **self.admin_site.each_context(request),
            "title": f"Review: {_who(entry)}",
            "opts": self.model._meta,
            "entry": entry,
            "original": entry,
            "signals": _signal_rows(entry.signals.all()),
            "open_case": open_case,
            "can_open": request.user.has_perm("integrity.work_case") and open_case is None,
            "withdrawals": _withdrawal_rows(entry, request.user),
        }
        return TemplateResponse(request, "admin/integrity/entry.html", context)

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:entry_id>/open/", tool(self.open_view), name="integrity_entry_open"),
            *super().get_urls(),
        ]

    def open_view(self, request, entry_id: int):
        entry = get_object_or_404(QueueEntry, pk=entry_id)
        opened: list[Case] = []

        def act(cleaned: dict) -> str:
            opened.append(case_open(entry=entry, staff=request.user))
            return f"Case #{opened[0].pk} is open on {_who(entry)}."

        response = tool_view(
            request, self, entry, title=f"Open a case on {_who(entry)}",
            permission="integrity.work_case", act=act, form_class=forms.Form,
            button="Open the case",
            intro="The case keeps the hands behind the signals; notes and the outcome follow.",
        )  # fmt: skip
        if opened:
            return redirect(reverse("admin:integrity_case_change", args=[opened[0].pk]))
        return response


def _withdrawal_rows(entry, staff) -> list[dict]:
    """An AML entry's player's withdrawals waiting for checks, each with a link to its page and
    to its hold (the cashier's tool: compliance staff hold it there, audited there)."""
    if entry.queue != Queue.AML:
        return []
    can_hold = staff.has_perm("cashier.decide_pendingwithdrawal") and staff.pk != entry.player_id
    return [
        {
            "id": withdrawal.pk,
            "url": reverse("admin:cashier_pendingwithdrawal_change", args=[withdrawal.pk]),
            "amount": money(withdrawal.amount),
            "status": withdrawal.get_status_display(),
            "requested_at": withdrawal.requested_at,
            "hold_url": reverse("admin:cashier_pendingwithdrawal_hold", args=[withdrawal.pk])
            if can_hold and withdrawal.status == PendingWithdrawal.Status.PENDING
            else "",
        }
        for withdrawal in PendingWithdrawal.objects.filter(
            player_id=entry.player_id, status__in=PendingWithdrawal.OPEN
        )
    ]


def _signal_rows(signals) -> list[dict]:
    rows = []
    for signal in signals:
        entries = format_html_join(
            " ",
            '<a href="{}">{}</a>',
            ((reverse("admin:cashier_entry_change", args=[e]), e) for e in signal.entry_ids[:30]),
        )
        hands = format_html_join(
            " ",
            '<a href="{}">{}</a>',
            ((reverse("admin:poker_hand_change", args=[h]), h) for h in signal.hand_ids[:30]),
        )
        more = len(signal.hand_ids) - 30
        rows.append(
            {
                "kind": signal.get_kind_display(),
                "figure": f"{signal.figure:g}",
                "score": f"{signal.score:.2f}",
                "detail": ", ".join(f"{key} {value}" for key, value in signal.detail.items()),
                "hands": hands,
                "more": more if more > 0 else 0,
                "entries": entries,
                "more_entries": max(0, len(signal.entry_ids) - 30),
            }
        )
    return rows


def _hand_rows(hand_ids: list[int]) -> list[dict]:
    """Each finished hand with every card: seats, holdings, nets, the board and the actions."""
    rows = []
    for hand_id in hand_ids[:CASE_HANDS_SHOWN]:
        try:
            record = hand_record(hand_id=hand_id, viewer=None, all_cards=True)
        except HandNotFound:
            continue
        names = {seat["seat"]: seat["player"] for seat in record["seats"]}
        actions = [
            f"{names.get(step['event']['seat'], step['event']['seat'])} "
            f"{step['event']['action']}"
            + (f" {money(step['event']['to'])}" if step["event"].get("to") else "")
            for step in record["steps"]
            if step["event"]["type"] == "action"
        ]
        rows.append(
            {
                "id": hand_id,
                "url": reverse("admin:poker_hand_change", args=[hand_id]),
                "table": record["table"].get("name", ""),
                "ended_at": record["ended_at"],
                "board": " ".join(record["board"]),
                "seats": [
                    {
                        "player": seat["player"],
                        "cards": " ".join(seat["cards"] or []),
                        "shown": seat["shown"],
                        "net": money(seat["net"]) if seat["net"] is not None else "",
                    }
                    for seat in record["seats"]
                ],
                "actions": "; ".join(actions),
            }
        )
    return rows


@admin.register(Case)
class CaseAdmin(ReadOnlyAdmin):
    list_display = ("id", "queue", "player", "partner", "opened_at", "opened_by", "outcome",
                    "closed_at")  # fmt: skip
    list_filter = ("queue", "outcome", "opened_at")
    search_fields = ("player__username", "partner__username")
    list_select_related = ("player", "partner", "opened_by")
    date_hierarchy = "opened_at"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        case = self.get_object(request, object_id)
        if case is None:
            raise Http404("No such case.")
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        can_work = request.user.has_perm("integrity.work_case") and case.closed_at is None
        context = {
            **self.admin_site.each_context(request),
            "title": f"Case #{case.pk}: {_who(case)}",
            "opts": self.model._meta,
            "case": case,
            "original": case,
            "signals": _signal_rows(case.entry.signals.all()),
            "hands": _hand_rows(case.hand_ids),
            "hands_not_shown": case.hand_ids[CASE_HANDS_SHOWN:],
            "notes": case.notes.select_related("author"),
            "can_work": can_work,
        }
        return TemplateResponse(request, "admin/integrity/case.html", context)

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:case_id>/note/", tool(self.note_view), name="integrity_case_note"),
            path("<int:case_id>/close/", tool(self.close_view), name="integrity_case_close"),
            *super().get_urls(),
        ]

    def note_view(self, request, case_id: int):
        case = get_object_or_404(Case, pk=case_id)

        def act(cleaned: dict) -> str:
            case_note_add(case=case, staff=request.user, text=cleaned["text"])
            return f"Note added to case #{case.pk}."

        return tool_view(
            request, self, case, title=f"Note on case #{case.pk}",
            permission="integrity.work_case", act=act, form_class=NoteForm,
            button="Add the note",
        )  # fmt: skip

    def close_view(self, request, case_id: int):
        case = get_object_or_404(Case.objects.select_related("player", "partner"), pk=case_id)
        members = [case.player, *([case.partner] if case.partner_id else [])]

        class Form(CloseForm):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.fields["suspend"].choices = [(str(p.pk), p.get_username()) for p in members]

        def act(cleaned: dict) -> str:
            suspend = [int(pk) for pk in cleaned["suspend"]]
            closed = case_close(case=case, staff=request.user, outcome=cleaned["outcome"],
                                reason=cleaned["reason"], suspend=suspend)  # fmt: skip
            return f"Case #{case.pk} is closed: {closed.get_outcome_display()}."

        return tool_view(
            request, self, case, title=f"Close case #{case.pk}",
            permission="integrity.work_case", act=act, form_class=Form,
            button="Close the case",
            intro="Suspended: no login, play or withdrawal until reinstated; the money stays "
            "in the wallet (funds held). Cleared and warned change nothing on the account.",
        )  # fmt: skip


@admin.register(CaseNote)
class CaseNoteAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "case", "author", "text")
    list_filter = ("created_at",)
    search_fields = ("case__player__username", "author__username", "text")
    list_select_related = ("case", "author")


@admin.register(Signal)
class SignalAdmin(ReadOnlyAdmin):
    list_display = ("entry", "kind", "figure", "score")
    list_filter = ("kind",)
    list_select_related = ("entry__player", "entry__partner")


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "since", "until", "player", "by", "hands", "entries", "queue")
    list_filter = ("started_at",)
    list_select_related = ("player", "by")
    date_hierarchy = "started_at"

    @admin.display(description="review queue")
    def queue(self, run):
        url = reverse("admin:integrity_queueentry_changelist")
        return format_html('<a href="{}?run={}">entries</a>', url, run.pk)

    def changelist_view(self, request, extra_context=None):
        extra = {"can_run": request.user.has_perm("integrity.run_checks"), **(extra_context or {})}
        return super().changelist_view(request, extra_context=extra)

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("player/", tool(self.player_view), name="integrity_run_player"),
            *super().get_urls(),
        ]

    def player_view(self, request):
        runs: list[Run] = []

        def act(cleaned: dict) -> str:
            User = get_user_model()
            player = User.objects.filter(username=cleaned["username"]).first()
            if player is None:
                raise IntegrityRefused("unknown_player", "No such player.")
            runs.append(integrity_run(player=player, by=request.user))
            return f"Checked {player.get_username()}: {runs[0].entries} queue entries."

        response = tool_view(
            request, self, ONE_PLAYER, title="Run the checks for a player",
            permission="integrity.run_checks", act=act, form_class=PlayerForm,
            button="Run the checks",
            intro="Reads the player's finished hands of the last days and lists what it finds.",
            done_url=reverse("admin:integrity_queueentry_changelist"),
        )  # fmt: skip
        if runs:
            url = reverse("admin:integrity_queueentry_changelist")
            return redirect(f"{url}?run={runs[0].pk}")
        return response
