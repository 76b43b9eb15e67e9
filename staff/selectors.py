"""What the admin's player page reads: money, seats, hands, Showdown rounds, responsible gaming,
table bars, ledger, audit records, notes.

Read-only, and never a card: hands are listed by table, number, status and the player's net
(a finished hand's whole history is on its own page; a running hand's cards are nowhere)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from audit.models import AuditRecord
from cashier.models import Account, BalanceAdjustment, Posting
from config.inputs import dollars
from poker.models import Hand, HandPlayer, Seat, TableBar
from responsible.models import DepositLimit, Exclusion, RealityCheck, ResponsibleGamingEvent
from responsible.rules import limit_effective
from showdown.models import ShowdownRound
from staff.models import PlayerNote

RECENT = 50


def _net(hand: Hand, seat: int) -> int | None:
    if hand.status != Hand.Status.FINISHED or not hand.result:
        return None
    for entry in hand.result.get("seats", []):
        if entry.get("seat") == seat:
            return entry.get("net")
    return None


def audit_records_of_player(player_id: int) -> QuerySet[AuditRecord]:
    """Records about the player (the subject, or named in the payload) or by them."""
    return AuditRecord.objects.filter(
        Q(subject_type__in=["auth.user", "staff.player"], subject_id=str(player_id))
        | Q(payload__player=player_id)
        | Q(actor_id=player_id)
    ).order_by("-id")


def player_overview(player) -> dict[str, Any]:
    """Everything the player page shows, each list newest first and at most RECENT long."""
    accounts = list(
        Account.objects.filter(owner=player).select_related("table").order_by("kind", "table_id")
    )
    wallet = next((a.balance for a in accounts if a.kind == Account.Kind.WALLET), 0)
    stacks = [a for a in accounts if a.kind == Account.Kind.TABLE_STACK]
    dealt = list(
        HandPlayer.objects.filter(player=player)
        .select_related("hand", "hand__table")
        .defer("hand__deck", "hand__setup", "hand__state")
        .order_by("-hand_id")[:RECENT]
    )
    return {
        "wallet": wallet,
        "stacks": stacks,
        "seats": list(Seat.objects.filter(player=player).select_related("table")),
        "hands": [{"hand": row.hand, "net": _net(row.hand, row.seat)} for row in dealt],
        "postings": list(
            Posting.objects.filter(account__owner=player)
            .select_related("entry", "account", "account__table")
            .order_by("-id")[:RECENT]
        ),
        "audit_records": list(audit_records_of_player(player.pk)[:RECENT]),
        "notes": list(PlayerNote.objects.filter(player=player).select_related("author")[:RECENT]),
        "adjustments": list(
            BalanceAdjustment.objects.filter(player=player).select_related(
                "requested_by", "decided_by"
            )[:RECENT]
        ),
        "responsible": responsible_state_of(player),
        "showdown_rounds": showdown_rounds_of(player),
        "table_bars": table_bars_of(player),
    }


def responsible_state_of(player, *, now=None) -> dict[str, Any]:
    """The player's responsible-gaming state as staff see it: the exclusion
    in force and past ones, each deposit limit with the cap in force now and a raise waiting
    its 24 hours, the reality check, and the player's recent changes."""
    now = now or timezone.now()
    exclusions = list(Exclusion.objects.filter(player=player).order_by("-ends_at", "-id")[:RECENT])
    order = {period: n for n, period in enumerate(DepositLimit.Period.values)}
    limits = sorted(DepositLimit.objects.filter(player=player), key=lambda x: order[x.period])
    return {
        "exclusion": next((e for e in exclusions if e.starts_at <= now < e.ends_at), None),
        "exclusions": [{"row": e, "in_force": e.starts_at <= now < e.ends_at} for e in exclusions],
        "limits": [
            {
                "row": limit,
                "in_force": limit_effective(limit, now=now),
                "raise_waits": limit.pending_from is not None and limit.pending_from > now,
            }
            for limit in limits
        ],
        "reality_check": RealityCheck.objects.filter(player=player).first(),
        "events": [
            {"row": event, "detail": _event_detail(event.detail)}
            for event in ResponsibleGamingEvent.objects.filter(player=player)[:RECENT]
        ],
    }


# The cents in a responsible-gaming event's detail (deposit limits), shown as dollars.
EVENT_MONEY = frozenset({"amount", "current", "requested", "previous"})


def _event_detail(detail: dict) -> str:
    """The event's detail for people, as "period: day; amount: $50.00" (money in dollars, a
    removed limit as "no limit")."""
    shown = []
    for key, value in detail.items():
        if key in EVENT_MONEY:
            value = "no limit" if value is None else dollars(value)
        shown.append(f"{key}: {value}")
    return "; ".join(shown)


def showdown_rounds_of(player) -> list[ShowdownRound]:
    """The player's Showdown rounds, newest first: stakes, decision and result, never the
    cards (a dealt round's cards to come are in its deck and state, not read here)."""
    return list(
        ShowdownRound.objects.filter(player=player)
        .select_related("table")
        .only(
            "table__name", "status", "ante", "hole_card_bonus", "final_hand_bonus", "bet",
            "staked", "decision", "net", "payout_capped", "created_at", "settled_at",
            "live_round_id", "player_id",
        )
        .order_by("-created_at", "-id")[:RECENT]
    )  # fmt: skip


def table_bars_of(player) -> list[TableBar]:
    """Tables staff removed the player from, newest first, lifted or run out ones too."""
    return list(
        TableBar.objects.filter(player=player).select_related("table", "staff", "lifted_by")[
            :RECENT
        ]
    )
