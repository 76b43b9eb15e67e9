"""What the admin's player page reads: money, seats, hands, ledger, audit records, notes.

Read-only, and never a card: hands are listed by table, number, status and the player's net
(a finished hand's whole history is on its own page; a running hand's cards are nowhere)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from audit.models import AuditRecord
from cashier.models import Account, BalanceAdjustment, Posting
from poker.models import Hand, HandPlayer, Seat
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
    }
