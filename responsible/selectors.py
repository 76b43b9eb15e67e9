"""Reads for the profile page, the API and the table page's reality check."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, Sum
from django.utils import timezone

from cashier.models import Account, Entry, Posting
from responsible.models import DepositLimit, RealityCheck
from responsible.rules import deposit_room, exclusion_active


def net_result_since(*, player, since: datetime) -> int:
    """The player's winnings minus losses at the room after `since`, in cents: hands settled
    on their table stacks plus banked bets and payouts on their wallet (deposits, buy-ins and
    cash-outs move money, they win or lose nothing)."""
    total = Posting.objects.filter(
        Q(entry__reason=Entry.Reason.HAND_SETTLEMENT, account__kind=Account.Kind.TABLE_STACK)
        | Q(
            entry__reason__in=[Entry.Reason.BANKED_BET, Entry.Reason.BANKED_PAYOUT],
            account__kind=Account.Kind.WALLET,
        ),
        account__owner=player,
        entry__created_at__gt=since,
    ).aggregate(total=Sum("amount"))["total"]
    return total or 0


def reality_check_for(*, player, session_started_at: datetime | None, now=None) -> dict:
    """What the table page's reminder shows: the interval (None: off), how long this session
    has lasted and its net result. The session begins at the player's login."""
    now = now or timezone.now()
    setting = RealityCheck.objects.filter(player=player).first()
    started = session_started_at or now
    return {
        "interval_minutes": setting.interval_minutes if setting else None,
        "session_started_at": started.isoformat(),
        "seconds_played": max(int((now - started).total_seconds()), 0),
        "net": net_result_since(player=player, since=started),
    }


def responsible_summary(*, player, now: datetime | None = None) -> dict:
    """Everything the profile page and the API show: caps (in force and waiting), what is
    left of each, the running exclusion and the reality check interval."""
    now = now or timezone.now()
    room = deposit_room(player=player, now=now)
    limits = []
    for period, label in DepositLimit.Period.choices:
        limit = DepositLimit.objects.filter(player=player, period=period).first()
        matured = limit is not None and limit.pending_from is not None and limit.pending_from <= now
        limits.append(
            {
                "period": period,
                "label": label,
                "limit": room.get(period, {}).get("limit"),
                "left": room.get(period, {}).get("left"),
                "pending_amount": None if limit is None or matured else limit.pending_amount,
                "pending_from": None if limit is None or matured else limit.pending_from,
            }
        )
    setting = RealityCheck.objects.filter(player=player).first()
    return {
        "limits": limits,
        "exclusion": exclusion_active(player=player, now=now),
        "reality_check_minutes": setting.interval_minutes if setting else None,
    }
