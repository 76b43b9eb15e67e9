"""Reads of the ledger for pages, the API, the tables and auditors; they never write."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db import connection
from django.db.models import QuerySet, Sum
from django.utils import timezone

from cashier.models import Account, Entry, PendingWithdrawal, Posting
from cashier.ratholing import BuyInTerms, buy_in_terms_for


def wallet_balance(*, player) -> int:
    """The player's wallet in cents (0 before the first deposit)."""
    account = Account.objects.filter(kind=Account.Kind.WALLET, owner=player).first()
    return account.balance if account else 0


def pending_withdrawals_of(*, player, recent: int = 10) -> list[PendingWithdrawal]:
    """The player's withdrawals that wait for identity checks (or on hold) and the latest
    settled ones, newest first."""
    rows = PendingWithdrawal.objects.filter(player=player).order_by("-requested_at", "-id")
    open_rows = list(rows.filter(status__in=PendingWithdrawal.OPEN))
    return open_rows + list(rows.exclude(status__in=PendingWithdrawal.OPEN)[:recent])


def table_stack_balance(*, player, table) -> int:
    """The player's chips at that table in cents (0 when not seated)."""
    account = Account.objects.filter(
        kind=Account.Kind.TABLE_STACK, owner=player, table=table
    ).first()
    return account.balance if account else 0


def table_stacks(*, table) -> dict[int, int]:
    """Every non-empty stack at the table: user id -> cents."""
    stacks = Account.objects.filter(
        kind=Account.Kind.TABLE_STACK, table_id=getattr(table, "pk", table), balance__gt=0
    )
    return dict(stacks.values_list("owner_id", "balance"))


def table_stacks_and_wallets(*, table, wallet_owner_ids) -> tuple[dict[int, int], dict[int, int]]:
    """(every non-empty stack at the table, the wallets of `wallet_owner_ids`), user id ->
    cents, in one read: what a table's frames show of money (a round trip less per change).

    Read on every change at every table, so it is one plain statement: Django took longer to
    build this query than the database to answer it."""
    sql, params = table_stacks_and_wallets_query(
        table_id=table.pk, wallet_owner_ids=wallet_owner_ids
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return table_stacks_and_wallets_of(rows, wallet_owner_ids=wallet_owner_ids)


def table_stacks_and_wallets_query(*, table_id: int, wallet_owner_ids) -> tuple[str, list[Any]]:
    """The read of `table_stacks_and_wallets` as SQL and its parameters, rows of (kind,
    owner_id, balance): a poker action's one statement reads it beside its writes
    (poker/services/action_write.py)."""
    sql = (
        f"SELECT kind, owner_id, balance FROM {Account._meta.db_table} "
        "WHERE (kind = %s AND table_id = %s AND balance > 0)"
    )
    params: list[Any] = [Account.Kind.TABLE_STACK.value, table_id]
    owners = sorted(set(wallet_owner_ids))
    if owners:
        places = ", ".join(["%s"] * len(owners))
        sql += f" OR (kind = %s AND owner_id IN ({places}))"
        params += [Account.Kind.WALLET.value, *owners]
    return sql, params


def table_stacks_and_wallets_of(rows, *, wallet_owner_ids) -> tuple[dict[int, int], dict[int, int]]:
    """(stacks, wallets) from the rows of `table_stacks_and_wallets_query`."""
    stacks: dict[int, int] = {}
    wallets = dict.fromkeys(wallet_owner_ids, 0)
    for kind, owner_id, balance in rows:
        if kind is None:
            continue  # no account at all (the statement's outer join)
        (stacks if kind == Account.Kind.TABLE_STACK else wallets)[owner_id] = balance
    return stacks, wallets


def hand_settlement_entries(*, hand_ids) -> dict[int, int]:
    """hand id -> the id of the ledger entry that settled it (hands that settled)."""
    rows = Entry.objects.filter(hand_id__in=list(hand_ids)).values_list("hand_id", "pk")
    return {hand_id: pk for hand_id, pk in rows if hand_id is not None}


def buy_in_range(*, player, table, now: datetime | None = None) -> tuple[int, int]:
    """(min, max) cents the player may buy in for at this table now, ratholing included."""
    terms = buy_in_terms(player=player, table=table, now=now)
    return terms.low, terms.high


def buy_in_terms(*, player, table, now: datetime | None = None) -> BuyInTerms:
    """The range with the ratholing rule that set it, if one did (`BuyInTerms`)."""
    return buy_in_terms_for(
        player=player,
        table_id=table.pk,
        table_range=(table.min_buy_in, table.max_buy_in),
        now=now or timezone.now(),
    )


# Moves between a player's own wallet and their own stack at a table: one line in the history.
OWN_TRANSFERS = ("buy_in", "top_up", "cash_out")


def player_history(*, player) -> QuerySet[Posting]:
    """The cashier page's history: one line a money movement. A buy-in, top-up or cash-out
    moves chips between the player's wallet and their stack: only its wallet leg is listed
    (with the table's name, from the entry); a hand's result is its table-stack leg."""
    return player_postings(player=player).exclude(
        account__kind=Account.Kind.TABLE_STACK, entry__reason__in=OWN_TRANSFERS
    )


def player_postings(*, player) -> QuerySet[Posting]:
    """The player's own transaction history, newest first: every leg on their wallet and their
    table stacks, with its entry (reason, time, table, hand)."""
    return (
        Posting.objects.filter(account__owner=player)
        .select_related("entry", "entry__table", "account", "account__table")
        .order_by("-entry__created_at", "-id")
    )


def account_statement(*, player, date_from: date, date_to: date) -> dict[str, Any]:
    """The player's statement for the UTC days [date_from, date_to]: the lines of the cashier
    page's history, oldest first, with the wallet's balance after each wallet line, and the
    wallet's balance at the start and the end (sums of its postings: the ledger, not a
    counter)."""
    start = datetime.combine(date_from, time.min, tzinfo=UTC)
    end = datetime.combine(date_to + timedelta(days=1), time.min, tzinfo=UTC)
    wallet = Posting.objects.filter(account__owner=player, account__kind=Account.Kind.WALLET)
    opening = wallet.filter(entry__created_at__lt=start).aggregate(total=Sum("amount"))["total"]
    balance = opening or 0
    lines = []
    for posting in (
        player_history(player=player)
        .filter(entry__created_at__gte=start, entry__created_at__lt=end)
        .order_by("entry__created_at", "id")
    ):
        on_wallet = posting.account.kind == Account.Kind.WALLET
        if on_wallet:
            balance += posting.amount
        table = posting.account.table or posting.entry.table
        lines.append(
            {"posting": posting, "table": table, "wallet_after": balance if on_wallet else None}
        )
    return {"opening": opening or 0, "closing": balance, "lines": lines}
