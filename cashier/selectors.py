"""Reads of the ledger for pages, the API, the tables and auditors; they never write."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from cashier.models import Account, Posting
from cashier.ratholing import buy_in_range_for


def wallet_balance(*, player) -> int:
    """The player's wallet in cents (0 before the first deposit)."""
    account = Account.objects.filter(kind=Account.Kind.WALLET, owner=player).first()
    return account.balance if account else 0


def table_stack_balance(*, player, table) -> int:
    """The player's chips at that table in cents (0 when not seated)."""
    account = Account.objects.filter(
        kind=Account.Kind.TABLE_STACK, owner=player, table=table
    ).first()
    return account.balance if account else 0


def table_stacks(*, table) -> dict[int, int]:
    """Every non-empty stack at the table: user id -> cents."""
    return dict(
        Account.objects.filter(
            kind=Account.Kind.TABLE_STACK, table=table, balance__gt=0
        ).values_list("owner_id", "balance")
    )


def buy_in_range(*, player, table, now: datetime | None = None) -> tuple[int, int]:
    """(min, max) cents the player may buy in for at this table now, ratholing included."""
    return buy_in_range_for(player=player, table=table, now=now or timezone.now())


def player_postings(*, player) -> QuerySet[Posting]:
    """The player's own transaction history, newest first: every leg on their wallet and their
    table stacks, with its entry (reason, time, table, hand)."""
    return (
        Posting.objects.filter(account__owner=player)
        .select_related("entry", "entry__table", "account", "account__table")
        .order_by("-entry__created_at", "-id")
    )
