"""Money movements: each service posts one balanced entry in one transaction, or refuses.

Every service locks the accounts it changes (`select_for_update`, always in ascending id order so
that two services touching the same accounts never deadlock), checks the rules, writes the entry
and its postings and moves the stored balances in the same transaction. A refusal raises
`CashierError` before anything is written. Services are safe inside an outer `atomic` block.

Sign convention: a posting's positive amount adds to its account. Money from outside comes out
of the `outside_world` account (which goes negative by what players brought in), so the sum of
all balances is always zero.

The outside world and each table's rake account are single hot rows: every player's deposits
and withdrawals serialise on the former. That is fine for play money; real volume would split
it into per-shard accounts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import Subject, audit_record
from cashier.gates import DEPOSIT, PLAY, WITHDRAWAL, money_checks_run
from cashier.models import Account, Entry, PendingWithdrawal, Posting, house_shard
from cashier.posting import (
    EntryId,
    Guard,
    Leg,
    Link,
    Movement,
    Posted,
    Row,
    entries_post_locked,
    entry_post_locked,
    refusal_of,
)
from cashier.ratholing import buy_in_range_for
from config.errors import Refused
from config.inputs import MAX_CENTS, dollars, parse_cents, parse_idempotency_key
from verification.selectors import player_verified

Kind = Account.Kind
Reason = Entry.Reason


class CashierError(Refused):
    """A refused money movement: `code` for programs, `message` for people. Nothing moved."""


# -- validation


def _check_amount(amount, *, what: str = "amount") -> int:
    """Whole cents, 1 to 10^11, by the room's one rule (config.inputs): `bad_amount` else."""
    return parse_cents(amount, field=what, error=CashierError)


def _check_key(idempotency_key) -> str:
    return parse_idempotency_key(idempotency_key, error=CashierError)


def _check_player(player):
    if not isinstance(player, get_user_model()) or player.pk is None:
        raise CashierError("unknown_player", _("No such player."))
    return player


def _check_table_id(table_id) -> int:
    if isinstance(table_id, bool) or not isinstance(table_id, int) or table_id <= 0:
        raise CashierError("unknown_table", _("No such table."))
    return table_id


def _check_table_exists(table_id) -> int:
    """For the services that may open a table's first stack: the table is the model the
    accounts point to (`Account.table`), read through that relation, not imported."""
    table_id = _check_table_id(table_id)
    if not Account.table.get_queryset().filter(pk=table_id).exists():
        raise CashierError("unknown_table", _("No such table."))
    return table_id


def _check_buy_in_range(min_buy_in, max_buy_in) -> tuple[int, int]:
    """The table's own buy-in range, given by the caller (the table's settings)."""
    low = parse_cents(min_buy_in, field="minimum buy-in", error=CashierError)
    high = parse_cents(max_buy_in, field="maximum buy-in", error=CashierError)
    if low > high:
        raise CashierError(
            "bad_amount", _("The minimum buy-in may not be above the maximum buy-in.")
        )
    return low, high


def _check_hand_id(hand_id) -> int:
    if isinstance(hand_id, bool) or not isinstance(hand_id, int) or hand_id <= 0:
        raise CashierError(
            "invalid_hand", _("Not a hand id: %(hand_id)s.") % {"hand_id": repr(hand_id)}
        )
    return hand_id


def _fingerprint(**request) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()


# -- accounts


def _account(kind: str, *, owner=None, table_id: int | None = None) -> Account:
    """The account of that kind for that owner/table, created on first use (race-safe)."""
    account, _ = Account.objects.get_or_create(kind=kind, owner=owner, table_id=table_id)
    return account


def _lock(accounts: Iterable[Account]) -> dict[int, Account]:
    """Lock the rows in id order (no deadlocks) and return fresh copies by id."""
    ids = sorted({account.pk for account in accounts})
    locked = Account.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    return {account.pk: account for account in locked}


def _post(
    *,
    reason: str,
    legs: list[tuple[Account, int]],
    player=None,
    table_id: int | None = None,
    hand_id: int | None = None,
    idempotency_key: str | None = None,
    fingerprint: str = "",
    created_by=None,
    memo: str = "",
    now: datetime | None = None,
    end_hand_for: Iterable[Account] = (),
    tournament_id: int | None = None,
) -> Entry:
    """Write one entry with its legs and move the (already locked) accounts' balances; the
    stacks in `end_hand_for` lose their in-hand mark in the same statement."""
    legs = [(account, amount) for account, amount in legs if amount != 0]
    if sum(amount for _, amount in legs) != 0:
        raise CashierError("unbalanced", _("An entry's postings must sum to zero."))
    for account, amount in legs:
        if account.kind in Account.PLAYER_KINDS and account.balance + amount < 0:
            raise CashierError(
                "insufficient_funds",
                _("Not enough money: %(balance)s available, %(needed)s needed.")
                % {"balance": dollars(account.balance), "needed": dollars(-amount)},
            )
    entry = Entry.objects.create(
        reason=reason,
        player=player,
        table_id=table_id,
        hand_id=hand_id,
        tournament_id=tournament_id,
        idempotency_key=idempotency_key,
        request_fingerprint=fingerprint,
        created_by=created_by,
        memo=memo,
        created_at=now or timezone.now(),
    )
    Posting.objects.bulk_create(
        [Posting(entry=entry, account=account, amount=amount) for account, amount in legs]
    )
    # The audit log holds every entry by reference, in the same transaction (audit/).
    audit_record(
        action="ledger.entry",
        actor=created_by,
        subject=Subject("cashier.entry", entry.pk, reason),
        payload={
            "reason": reason,
            "player_id": player.pk if player is not None else None,
            "table_id": table_id,
            "hand_id": hand_id,
            **({"tournament_id": tournament_id} if tournament_id else {}),
            "legs": [[account.pk, amount] for account, amount in legs],
        },
        now=entry.created_at,
    )
    changes = {account.pk: [amount, 0] for account, amount in legs}
    for account in end_hand_for:
        changes.setdefault(account.pk, [0, 0])[1] = 1
        account.in_hand_id = None
    if changes:
        # One statement for every row (all locked by the caller): (id, delta, end hand?).
        values = ", ".join(["(%s, %s, %s)"] * len(changes))
        table_name = Account._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table_name} SET balance = balance + v.column2, "
                "in_hand_id = CASE WHEN v.column3 = 1 THEN NULL ELSE in_hand_id END "
                f"FROM (VALUES {values}) AS v WHERE {table_name}.id = v.column1",
                [x for pk, (delta, end) in changes.items() for x in (pk, delta, end)],
            )
        for account, amount in legs:
            account.balance += amount
    return entry


def _replay(*, player, idempotency_key: str, fingerprint: str) -> Entry | None:
    """The entry an earlier identical request made, or None; a different request is refused."""
    earlier = Entry.objects.filter(player=player, idempotency_key=idempotency_key).first()
    if earlier is None:
        return None
    if earlier.request_fingerprint != fingerprint:
        raise CashierError(
            "idempotency_conflict",
            _("This idempotency key was already used for a different request."),
        )
    return earlier


def _keyed_transfer(
    *,
    reason: str,
    player,
    source: Account,
    target: Account,
    amount: int,
    idempotency_key: str,
    fingerprint: str,
    table_id: int | None = None,
    now: datetime | None = None,
    refuse: Callable[[Account, Account], None] | None = None,
) -> Entry:
    """Move `amount` from `source` to `target` once per idempotency key.

    Both rows are locked first, so a concurrent twin waits and then replays the first one's
    entry. `refuse(source, target)` sees the locked rows and raises `CashierError` when the
    move is not allowed.
    """
    with transaction.atomic():
        locked = _lock([source, target])
        earlier = _replay(player=player, idempotency_key=idempotency_key, fingerprint=fingerprint)
        if earlier is not None:
            return earlier
        source, target = locked[source.pk], locked[target.pk]
        try:
            with transaction.atomic():
                if refuse is not None:
                    refuse(source, target)
                return _post(
                    reason=reason,
                    legs=[(source, -amount), (target, amount)],
                    player=player,
                    table_id=table_id,
                    idempotency_key=idempotency_key,
                    fingerprint=fingerprint,
                    created_by=player,
                    now=now,
                )
        except IntegrityError:
            # A twin with the same key committed between our check and our insert.
            earlier = _replay(
                player=player, idempotency_key=idempotency_key, fingerprint=fingerprint
            )
            if earlier is None:
                raise
            return earlier


# -- wallet


def wallet_deposit(*, player, amount: int, idempotency_key: str) -> Entry:
    """Play money in from the (pretend) payment provider to the player's wallet."""
    player, amount, key = _check_player(player), _check_amount(amount), _check_key(idempotency_key)

    def refuse(world: Account, wallet: Account) -> None:
        # Under the wallet's lock: exclusions, the e-mail proof and deposit limits.
        money_checks_run(kind=DEPOSIT, player=player, amount=amount, error=CashierError)

    return _keyed_transfer(
        reason=Reason.DEPOSIT,
        player=player,
        source=_account(Kind.OUTSIDE_WORLD),
        target=_account(Kind.WALLET, owner=player),
        amount=amount,
        idempotency_key=key,
        fingerprint=_fingerprint(op="deposit", player=player.pk, amount=amount),
        refuse=refuse,
    )


def wallet_withdraw(*, player, amount: int, idempotency_key: str) -> Entry:
    """Wallet money out to the (pretend) payment provider; never more than the wallet holds.

    A withdrawal that needs identity checks (`withdrawal_check_why`) of a player not checked
    yet does not pay out: its money moves to the held `withdrawals_pending` account in a
    `withdrawal_held` entry, with a `PendingWithdrawal` waiting for compliance staff
    (cashier/withdrawals.py). Either way one entry, once per idempotency key."""
    player, amount, key = _check_player(player), _check_amount(amount), _check_key(idempotency_key)
    fingerprint = _fingerprint(op="withdraw", player=player.pk, amount=amount)
    wallet, world = _account(Kind.WALLET, owner=player), _account(Kind.OUTSIDE_WORLD)
    # The held account is opened by the first withdrawal that waits (below), not by every one.
    held = Account.objects.filter(kind=Kind.WITHDRAWALS_PENDING).first()
    with transaction.atomic():
        # All in id order (no deadlock with a deposit or a decision); the wallet's lock orders
        # this player's withdrawals, so the total that decides whether this one waits is exact.
        locked = _lock([wallet, world, *([held] if held else [])])
        earlier = _replay(player=player, idempotency_key=key, fingerprint=fingerprint)
        if earlier is not None:
            return earlier
        wallet, world = locked[wallet.pk], locked[world.pk]
        try:
            with transaction.atomic():
                money_checks_run(kind=WITHDRAWAL, player=player, error=CashierError)
                if wallet.balance < amount:
                    raise CashierError(
                        "insufficient_funds",
                        _("You cannot withdraw %(amount)s: your wallet holds %(balance)s.")
                        % {"amount": dollars(amount), "balance": dollars(wallet.balance)},
                    )
                why = withdrawal_check_why(player=player, amount=amount)
                if why is None:
                    target = world
                elif held is not None:
                    target = locked[held.pk]
                else:
                    # Its first use: no one else can hold the new row (openers serialise on
                    # the outside world's lock, decisions come after a waiting withdrawal).
                    target = _lock([_account(Kind.WITHDRAWALS_PENDING)]).popitem()[1]
                entry = _post(
                    reason=Reason.WITHDRAWAL if why is None else Reason.WITHDRAWAL_HELD,
                    legs=[(wallet, -amount), (target, amount)],
                    player=player,
                    idempotency_key=key,
                    fingerprint=fingerprint,
                    created_by=player,
                )
                if why is not None:
                    pending = PendingWithdrawal.objects.create(
                        player=player, amount=amount, why=why, held_entry=entry,
                        requested_at=entry.created_at,
                    )  # fmt: skip
                    audit_record(
                        action="cashier.withdrawal_pending",
                        actor=player,
                        subject=pending,
                        payload={
                            "player": player.pk,
                            "amount": amount,
                            "why": why,
                            "entry": entry.pk,
                        },
                        now=entry.created_at,
                    )
                return entry
        except IntegrityError:
            # A twin with the same key committed between our check and our insert.
            earlier = _replay(player=player, idempotency_key=key, fingerprint=fingerprint)
            if earlier is None:
                raise
            return earlier


def withdrawal_check_why(*, player, amount: int) -> str | None:
    """Why a withdrawal of `amount` must wait for identity checks, or None to pay it now: a
    checked player's never wait; anyone else's wait above `WITHDRAWAL_CHECK_ABOVE_CENTS`, or
    once their withdrawals (paid or waiting, with this one) pass `WITHDRAWAL_CHECK_TOTAL_CENTS`."""
    if player_verified(player_id=player.pk):
        return None
    if amount > settings.WITHDRAWAL_CHECK_ABOVE_CENTS:
        return PendingWithdrawal.Why.ABOVE_THRESHOLD
    if withdrawn_total(player=player) + amount > settings.WITHDRAWAL_CHECK_TOTAL_CENTS:
        return PendingWithdrawal.Why.TOTAL
    return None


def withdrawn_total(*, player) -> int:
    """Cents the player withdrew or is waiting to withdraw: what left their wallet in
    withdrawals and held withdrawals, less what came back to it."""
    moved = Posting.objects.filter(
        account__kind=Kind.WALLET,
        account__owner=player,
        entry__reason__in=[Reason.WITHDRAWAL, Reason.WITHDRAWAL_HELD, Reason.WITHDRAWAL_RETURNED],
    ).aggregate(total=Sum("amount"))["total"]
    return -(moved or 0)


# -- table stakes


def _range_message(low: int, high: int) -> str:
    if low == high:
        return _("exactly %(amount)s") % {"amount": dollars(low)}
    return _("between %(low)s and %(high)s") % {"low": dollars(low), "high": dollars(high)}


def table_buy_in(
    *,
    player,
    table_id: int,
    min_buy_in: int,
    max_buy_in: int,
    amount: int,
    idempotency_key: str,
    now=None,
) -> Entry:
    """Wallet -> a fresh table stack, within the buy-in range (ratholing rules, RULES.md 5).

    `min_buy_in`/`max_buy_in` are the table's own range (its settings, given by the caller);
    the ratholing rules may narrow it for this player."""
    player, table_id = _check_player(player), _check_table_exists(table_id)
    table_range = _check_buy_in_range(min_buy_in, max_buy_in)
    amount, key = _check_amount(amount, what="buy-in"), _check_key(idempotency_key)
    now = now or timezone.now()

    def refuse(wallet: Account, stack: Account) -> None:
        money_checks_run(kind=PLAY, player=player, error=CashierError, now=now)
        if stack.balance > 0:
            raise CashierError(
                "already_seated",
                _("You already have %(balance)s at this table; top up instead.")
                % {"balance": dollars(stack.balance)},
            )
        low, high = buy_in_range_for(
            player=player, table_id=table_id, table_range=table_range, now=now
        )
        if not low <= amount <= high:
            raise CashierError(
                "buy_in_out_of_range",
                _("Your buy-in at this table must be %(range_message)s; you asked for %(amount)s.")
                % {"range_message": _range_message(low, high), "amount": dollars(amount)},
            )
        if wallet.balance < amount:
            raise CashierError(
                "insufficient_funds",
                _("Your wallet holds %(balance)s, not enough for a %(amount)s buy-in.")
                % {"balance": dollars(wallet.balance), "amount": dollars(amount)},
            )

    return _keyed_transfer(
        reason=Reason.BUY_IN,
        player=player,
        table_id=table_id,
        source=_account(Kind.WALLET, owner=player),
        target=_account(Kind.TABLE_STACK, owner=player, table_id=table_id),
        amount=amount,
        idempotency_key=key,
        fingerprint=_fingerprint(op="buy_in", player=player.pk, table=table_id, amount=amount),
        now=now,
        refuse=refuse,
    )


def table_top_up(
    *,
    player,
    table_id: int,
    min_buy_in: int,
    max_buy_in: int,
    amount: int,
    idempotency_key: str,
    now=None,
) -> Entry:
    """Wallet -> the player's stack between hands, up to the top of their buy-in range (the
    table's own range, given by the caller, as the ratholing rules leave it)."""
    player, table_id = _check_player(player), _check_table_exists(table_id)
    table_range = _check_buy_in_range(min_buy_in, max_buy_in)
    amount, key = _check_amount(amount, what="top-up"), _check_key(idempotency_key)
    now = now or timezone.now()

    def refuse(wallet: Account, stack: Account) -> None:
        money_checks_run(kind=PLAY, player=player, error=CashierError, now=now)
        if stack.balance == 0:
            raise CashierError("not_seated", _("You have no chips at this table; buy in first."))
        if stack.in_hand_id is not None:
            raise CashierError("in_hand", _("You cannot top up during a hand; wait for it to end."))
        _low, high = buy_in_range_for(
            player=player, table_id=table_id, table_range=table_range, now=now
        )
        if stack.balance + amount > high:
            room = max(high - stack.balance, 0)
            raise CashierError(
                "top_up_over_max",
                _(
                    "Your stack may be at most %(high)s at this table; you have "
                    "%(balance)s, so you can add at most %(room)s."
                )
                % {"high": dollars(high), "balance": dollars(stack.balance), "room": dollars(room)},
            )
        if wallet.balance < amount:
            raise CashierError(
                "insufficient_funds",
                _("Your wallet holds %(balance)s, not enough to add %(amount)s.")
                % {"balance": dollars(wallet.balance), "amount": dollars(amount)},
            )

    return _keyed_transfer(
        reason=Reason.TOP_UP,
        player=player,
        table_id=table_id,
        source=_account(Kind.WALLET, owner=player),
        target=_account(Kind.TABLE_STACK, owner=player, table_id=table_id),
        amount=amount,
        idempotency_key=key,
        fingerprint=_fingerprint(op="top_up", player=player.pk, table=table_id, amount=amount),
        now=now,
        refuse=refuse,
    )


@transaction.atomic
def table_cash_out(*, player, table_id: int, now=None, memo: str = "", by=None) -> Entry | None:
    """The whole table stack back to the wallet (None when empty); refused during a hand.

    The cash-out entry is what ratholing later reads: who left which table with how much, when.
    `memo` says why when the player did not choose to leave (the table's removal code); `by`
    is the staff member who made them leave (recorded as the entry's author), else the player.
    """
    player, table_id = _check_player(player), _check_table_id(table_id)
    stack = Account.objects.filter(kind=Kind.TABLE_STACK, owner=player, table_id=table_id).first()
    if stack is None:
        return None
    wallet = _account(Kind.WALLET, owner=player)
    locked = _lock([wallet, stack])
    current = locked[stack.pk]
    if current.in_hand_id is not None:
        raise CashierError("in_hand", _("You cannot cash out during a hand; wait for it to end."))
    if current.balance == 0:
        return None
    return _post(
        reason=Reason.CASH_OUT,
        legs=[(current, -current.balance), (locked[wallet.pk], current.balance)],
        player=player,
        table_id=table_id,
        created_by=by or player,
        memo=memo,
        now=now,
    )


# -- hands


def _player_ids(players) -> list[int]:
    ids = []
    for player in players:
        if isinstance(player, get_user_model()):
            ids.append(player.pk)
        elif isinstance(player, int) and not isinstance(player, bool):
            ids.append(player)
        else:
            raise CashierError(
                "unknown_player", _("Not a player: %(player)s.") % {"player": repr(player)}
            )
    return ids


def _stacks(*, table_id: int, player_ids: list[int]) -> dict[int, Account]:
    """The players' stack accounts at the table by owner id, locked; each must exist."""
    found = {
        account.owner_id: account
        for account in Account.objects.filter(
            kind=Kind.TABLE_STACK, table_id=table_id, owner_id__in=player_ids
        )
        if account.owner_id is not None  # always, by the filter: a stack has an owner
    }
    missing = sorted(set(player_ids) - set(found))
    if missing:
        raise CashierError(
            "unknown_account",
            _("No table stack at table %(table_id)s for player id(s) %(missing)s.")
            % {"table_id": table_id, "missing": missing},
        )
    locked = _lock(found.values())
    return {owner_id: locked[account.pk] for owner_id, account in found.items()}


def hand_stacks_commit(*, table_id: int, hand_id: int, players: list) -> None:
    """Mark these stacks as playing hand `hand_id`: no top-up or cash-out until it ends.

    One UPDATE, every deal: it marks all the stacks or none, and only while each exists, none
    is in another hand and the hand is not settled; when it marks fewer than all, nothing was
    written and the reads after it say which rule refused (a refusal, as before)."""
    table_id, hand_id = _check_table_id(table_id), _check_hand_id(hand_id)
    player_ids = sorted(set(_player_ids(players)))
    account, entry = (connection.ops.quote_name(m._meta.db_table) for m in (Account, Entry))
    places = ", ".join(["%s"] * len(player_ids))
    stacks = f"kind = %s AND table_id = %s AND owner_id IN ({places})"
    free = "(in_hand_id IS NULL OR in_hand_id = %s)"
    # The rows are locked in id order first (no deadlock with a movement locking two of them,
    # which also goes in id order).
    locked = f"id IN (SELECT id FROM {account} WHERE {stacks} ORDER BY id FOR UPDATE) AND "
    where: list[Any] = [Kind.TABLE_STACK.value, table_id, *player_ids]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {account} SET in_hand_id = %s WHERE {locked}{stacks} AND {free} "
            f"AND NOT EXISTS (SELECT 1 FROM {entry} WHERE hand_id = %s) "
            f"AND (SELECT COUNT(*) FROM {account} WHERE {stacks} AND {free}) = %s",
            [
                hand_id,
                *where,
                *where,
                hand_id,
                hand_id,
                *where,
                hand_id,
                len(player_ids),
            ],
        )
        if cursor.rowcount == len(player_ids):
            return
    _stacks_commit_refuse(table_id=table_id, hand_id=hand_id, player_ids=player_ids)


def _stacks_commit_refuse(*, table_id: int, hand_id: int, player_ids: list[int]) -> None:
    """Why `hand_stacks_commit` marked nothing, for people."""
    if Entry.objects.filter(hand_id=hand_id).exists():
        raise CashierError(
            "already_settled", _("Hand %(hand_id)s is already settled.") % {"hand_id": hand_id}
        )
    stacks = _stacks(table_id=table_id, player_ids=player_ids)  # unknown_account, else locked
    busy = {uid: s.in_hand_id for uid, s in stacks.items() if s.in_hand_id not in (None, hand_id)}
    raise CashierError(
        "in_hand",
        _("Player id(s) %(player_ids)s are still in hand %(in_hand_id)s.")
        % {"player_ids": sorted(busy), "in_hand_id": next(iter(busy.values()), None)},
    )


def hand_settle(
    *, table_id: int, hand_id: int, net_by_player: dict[int, int], rake: int, now=None
) -> Entry:
    """Post a finished hand as one entry: each stack +/- its net result, the rake to the house.

    Unique per hand (a second call raises `already_settled`). Players with a zero net get no
    posting; a hand where every net and the rake are zero still writes an entry without
    postings, which records that it settled. Clears the hand's in-hand marks.
    """
    table_id, hand_id = _check_table_id(table_id), _check_hand_id(hand_id)
    if not isinstance(net_by_player, dict) or not net_by_player:
        raise CashierError("invalid_settlement", _("A settlement needs each player's net result."))
    for user_id, net in net_by_player.items():
        if isinstance(user_id, bool) or not isinstance(user_id, int):
            raise CashierError(
                "unknown_player", _("Not a player id: %(user_id)s.") % {"user_id": repr(user_id)}
            )
        parse_cents(
            net, field=f"player {user_id}'s net result", minimum=-MAX_CENTS, error=CashierError
        )
    parse_cents(rake, field="rake", minimum=0, error=CashierError)
    if sum(net_by_player.values()) + rake != 0:
        raise CashierError(
            "unbalanced",
            _(
                "Hand %(hand_id)s: the net results (%(sum)s) and the rake "
                "(%(rake)s) must sum to zero."
            )
            % {"hand_id": hand_id, "sum": sum(net_by_player.values()), "rake": rake},
        )
    return _settle(
        table_id=table_id, hand_id=hand_id, net_by_player=net_by_player, rake=rake, now=now
    )


def _settle(*, table_id: int, hand_id: int, net_by_player: dict[int, int], rake: int, now) -> Entry:
    """Lock, check and post in one statement (cashier.posting): the players' stacks and the
    table's rake account, every stack marked in this hand losing its mark. A hand settled
    before is refused by its unique hand id, without a separate look-up. A refusal is raised
    outside any atomic block of ours and posted nothing, so the caller's transaction goes on."""
    legs = [
        Leg(Kind.TABLE_STACK, net, owner_id=uid, table_id=table_id, guarded=True)
        for uid, net in sorted(net_by_player.items())
    ]
    legs.append(Leg(Kind.TABLE_RAKE, rake, table_id=table_id))
    for _attempt in range(2):
        posted = entry_post_locked(
            legs=legs,
            reason=Reason.HAND_SETTLEMENT,
            table_id=table_id,
            hand_id=hand_id,
            memo=f"hand {hand_id}",
            now=now,
            end_hand=(table_id, hand_id),
            busy_hand_id=hand_id,
        )
        if posted.entry is not None:
            return posted.entry
        first = legs[-1].key not in posted.locked
        if first and not refusal_of(legs[:-1], posted.locked, busy_hand_id=hand_id):
            _account(Kind.TABLE_RAKE, table_id=table_id)  # the table's first settlement
            continue
        break
    _settle_refuse(posted, legs=legs, table_id=table_id, hand_id=hand_id)
    raise AssertionError("unreachable")  # pragma: no cover


def _settle_refuse(posted: Posted, *, legs: list[Leg], table_id: int, hand_id: int) -> None:
    """Why a settlement posted nothing, for people."""
    if posted.refusal == "settled":
        raise CashierError(
            "already_settled", _("Hand %(hand_id)s is already settled.") % {"hand_id": hand_id}
        )
    # A table stack's leg always names its player (legs[:-1]; the last is the table's rake).
    missing = sorted(leg.owner_id or 0 for leg in legs[:-1] if leg.key not in posted.locked)
    if missing:
        raise CashierError(
            "unknown_account",
            _("No table stack at table %(table_id)s for player id(s) %(missing)s.")
            % {"table_id": table_id, "missing": missing},
        )
    if posted.refusal == "busy":
        busy = [
            leg.owner_id or 0
            for leg in legs[:-1]
            if posted.locked[leg.key].in_hand_id not in (None, hand_id)
        ]
        raise CashierError(
            "in_hand",
            _("Player id(s) %(player_ids)s are in another hand.") % {"player_ids": sorted(busy)},
        )
    short = next(
        leg for leg in legs if leg.guarded and posted.locked[leg.key].balance + leg.amount < 0
    )
    raise CashierError(
        "insufficient_funds",
        _("Not enough money: %(balance)s available, %(needed)s needed.")
        % {
            "balance": dollars(posted.locked[short.key].balance),
            "needed": dollars(-short.amount),
        },
    )


@transaction.atomic
def hand_release(*, table_id: int, hand_id: int) -> None:
    """A cancelled hand: clear its in-hand marks and post nothing (no bet ever left a stack)."""
    table_id, hand_id = _check_table_id(table_id), _check_hand_id(hand_id)
    marked = Account.objects.filter(kind=Kind.TABLE_STACK, table_id=table_id, in_hand_id=hand_id)
    _lock(marked)
    Account.objects.filter(pk__in=[a.pk for a in marked]).update(in_hand_id=None)


# -- tournaments
#
# The tournaments app sits above the cashier: these services take the player, the tournament's
# plain id and the amounts (its buy-in and fee). A buy-in moves money once per idempotency key;
# the caller runs them inside its own transaction, under the tournament's row lock, and stores
# the entry's id on the registration, which is what makes a refund happen once.


def _check_tournament_id(tournament_id) -> int:
    if isinstance(tournament_id, bool) or not isinstance(tournament_id, int) or tournament_id <= 0:
        raise CashierError("unknown_tournament", _("No such tournament."))
    return tournament_id


def _tournament_amounts(buy_in, fee) -> tuple[int, int]:
    """A tournament's buy-in (to its prize pool, at least a cent) and fee (the house's, may
    be zero: a freeroll of fees)."""
    buy_in = parse_cents(buy_in, field="buy-in", error=CashierError)
    fee = parse_cents(fee, field="fee", minimum=0, error=CashierError)
    return buy_in, fee


def _pool_account(tournament_id: int) -> Account:
    account, _ = Account.objects.get_or_create(
        kind=Kind.TOURNAMENT_POOL, tournament_id=tournament_id
    )
    return account


def tournament_buy_in(
    *, player, tournament_id: int, buy_in: int, fee: int, idempotency_key: str, now=None
) -> Entry:
    """Wallet -> the tournament's prize pool (the buy-in) and the house's fee account (the fee),
    one entry. Responsible gaming's play checks run first, under the wallet's lock (a time-out,
    a self-exclusion, a loss limit reached or a suspended account refuses it, as a table's
    buy-in). The same key again returns the first entry and moves nothing."""
    player, tournament_id = _check_player(player), _check_tournament_id(tournament_id)
    buy_in, fee = _tournament_amounts(buy_in, fee)
    key = _check_key(idempotency_key)
    now = now or timezone.now()
    fingerprint = _fingerprint(
        op="tournament_buy_in", player=player.pk, tournament=tournament_id, buy_in=buy_in, fee=fee
    )
    wallet, pool = _account(Kind.WALLET, owner=player), _pool_account(tournament_id)
    fees = _account(Kind.TOURNAMENT_FEES)
    with transaction.atomic():
        locked = _lock([wallet, pool, fees])
        earlier = _replay(player=player, idempotency_key=key, fingerprint=fingerprint)
        if earlier is not None:
            return earlier
        money_checks_run(kind=PLAY, player=player, error=CashierError, now=now)
        wallet = locked[wallet.pk]
        if wallet.balance < buy_in + fee:
            raise CashierError(
                "insufficient_funds",
                _("Your wallet holds %(balance)s, not enough for %(amount)s (buy-in and fee).")
                % {"balance": dollars(wallet.balance), "amount": dollars(buy_in + fee)},
            )
        entry = _post(
            reason=Reason.TOURNAMENT_BUY_IN,
            legs=[(wallet, -(buy_in + fee)), (locked[pool.pk], buy_in), (locked[fees.pk], fee)],
            player=player,
            idempotency_key=key,
            fingerprint=fingerprint,
            created_by=player,
            memo=f"tournament {tournament_id}",
            now=now,
            tournament_id=tournament_id,
        )
        return entry


def tournament_refund(
    *, player, tournament_id: int, buy_in: int, fee: int, memo: str = "", by=None, now=None
) -> Entry:
    """The tournament's prize pool and the house's fee account -> the wallet: a buy-in and fee
    given back in one entry (unregistering before the start, a self-exclusion, staff
    cancelling). No responsible-gaming check: money going home is never refused. The caller
    makes it happen once (the registration it refunds, under the tournament's lock); the pool
    cannot give back more than it holds."""
    player, tournament_id = _check_player(player), _check_tournament_id(tournament_id)
    buy_in, fee = _tournament_amounts(buy_in, fee)
    wallet, pool = _account(Kind.WALLET, owner=player), _pool_account(tournament_id)
    fees = _account(Kind.TOURNAMENT_FEES)
    with transaction.atomic():
        locked = _lock([wallet, pool, fees])
        if locked[pool.pk].balance < buy_in:
            raise CashierError(
                "not_in_pool",
                _("Tournament %(tournament_id)s's prize pool holds %(balance)s, not %(amount)s.")
                % {
                    "tournament_id": tournament_id,
                    "balance": dollars(locked[pool.pk].balance),
                    "amount": dollars(buy_in),
                },
            )
        entry = _post(
            reason=Reason.TOURNAMENT_REFUND,
            legs=[
                (locked[wallet.pk], buy_in + fee),
                (locked[pool.pk], -buy_in),
                (locked[fees.pk], -fee),
            ],
            player=player,
            created_by=by or player,
            memo=memo or f"tournament {tournament_id}",
            now=now,
            tournament_id=tournament_id,
        )
        return entry


def tournament_payout(*, tournament_id: int, prizes: dict[int, int], now=None) -> Entry:
    """A Sit & Go's end: its whole prize pool to the places paid, one entry of the room's
    (player None): the pool's leg and one wallet leg per player paid (`prizes`: user id ->
    cents, each above zero). The prizes must add up to exactly what the pool holds, so the
    pool ends at zero. The caller makes it happen once (under the tournament's lock)."""
    tournament_id = _check_tournament_id(tournament_id)
    if not prizes or any(
        isinstance(cents, bool) or not isinstance(cents, int) or cents <= 0
        for cents in prizes.values()
    ):
        raise CashierError("bad_amount", _("Each prize is whole cents above zero."))
    users = get_user_model().objects.in_bulk(list(prizes))
    if len(users) != len(prizes):
        raise CashierError("unknown_player", _("A prize names no player."))
    pool = _pool_account(tournament_id)
    wallets = {uid: _account(Kind.WALLET, owner=users[uid]) for uid in sorted(prizes)}
    with transaction.atomic():
        locked = _lock([pool, *wallets.values()])
        total = sum(prizes.values())
        if locked[pool.pk].balance != total:
            raise CashierError(
                "not_in_pool",
                _("Tournament %(tournament_id)s's prize pool holds %(balance)s, not %(amount)s.")
                % {
                    "tournament_id": tournament_id,
                    "balance": dollars(locked[pool.pk].balance),
                    "amount": dollars(total),
                },
            )
        return _post(
            reason=Reason.TOURNAMENT_PAYOUT,
            legs=[(locked[pool.pk], -total)]
            + [(locked[wallets[uid].pk], prizes[uid]) for uid in sorted(prizes)],
            memo=f"tournament {tournament_id} prizes",
            now=now,
            tournament_id=tournament_id,
        )


# -- the banked game (Omaha Showdown: the player against the house)
#
# The banked game's rounds live in the `showdown` app, which the cashier does not import: these
# services take the player, the round's plain id (for the memo) and amounts. Wagers wait in
# `banked_bets_in_play` until their round settles (results to the wallet, from or to the
# house's bankroll) or is voided (to charity, RULES.md 6). The caller runs them inside the
# round's own transaction and stores the entries on the round, which is what makes a repeated
# Deal or decision move nothing twice. No savepoints: a refusal here fails the whole round's
# transaction, which is what the caller wants (and saves two statements per movement).


def _check_round_id(round_id) -> int:
    if isinstance(round_id, bool) or not isinstance(round_id, int) or round_id <= 0:
        raise CashierError(
            "invalid_round", _("Not a round id: %(round_id)s.") % {"round_id": repr(round_id)}
        )
    return round_id


def _banked_legs(*, player, wager: int = 0, staked: int = 0, net: int = 0) -> list[Leg]:
    """The legs of one player's banked movement on their shard of the house's accounts: a
    wager from the wallet into bets in play, and/or a settlement of `staked` cents out of bets
    in play, `staked + net` to the wallet and `-net` to the house's bankroll."""
    shard = house_shard(player.pk)
    wallet = wager - (staked + net)
    legs = [Leg(Kind.WALLET, -wallet, owner_id=player.pk, guarded=True)] if wallet else []
    if wager - staked:
        legs.append(Leg(Kind.BANKED_BETS_IN_PLAY, wager - staked, shard=shard, guarded=True))
    if net:
        legs.append(Leg(Kind.HOUSE_BANKROLL, -net, shard=shard))
    return legs


def _banked_post(
    *, legs: list[Leg], reason: str, player, memo: str, now, by=None, link=None
) -> Posted:
    """Post a banked movement in one statement, opening the accounts on first use (the room's
    first round on a shard, the player's first money)."""
    movement = Movement(legs, reason, player=player, created_by=by, memo=memo)
    return _banked_post_many(entries=[movement], now=now, link=link)


def _banked_post_many(*, entries: list[Movement], now, link=None, guard=None) -> Posted:
    """`_banked_post` for several entries in one statement (a decision's Bet and settlement).
    Outside a caller's transaction that statement is its own (no BEGIN and COMMIT around
    it: `banked_wager_place` and `banked_decision_settle` open none); the accounts opened on
    first use before a retry are empty rows, harmless if the movement is then refused."""
    legs = [leg for movement in entries for leg in movement.legs]
    if isinstance(link, tuple):
        model, pk, name = link
        link = Link(model, pk, {name: EntryId(0)})
    for _attempt in range(2):
        posted = entries_post_locked(entries=entries, now=now, link=link, guard=guard)
        if posted.refusal == "moved_on":
            raise CashierError("moved_on", _("This round changed meanwhile; nothing was posted."))
        if posted.refusal != "missing":
            return posted
        for leg in legs:
            if leg.key not in posted.locked:
                Account.objects.get_or_create(
                    kind=leg.kind,
                    owner_id=leg.owner_id,
                    table_id=leg.table_id,
                    shard=leg.shard,
                )
    raise CashierError("unknown_account", _("Could not open the banked game's accounts."))


def _short(posted: Posted, legs: list[Leg], kind: str) -> Account | None:
    """The account of `kind` that a refused movement would have taken below zero, if any."""
    for leg in legs:
        account = posted.locked.get(leg.key)
        if leg.kind == kind and account is not None and account.balance + leg.amount < 0:
            return account
    return None


def banked_wager_place(
    *,
    player,
    round_id: int,
    amount: int,
    now=None,
    link: tuple | Link | Row | Sequence[Link | Row] | None = None,
) -> Entry:
    """Wallet -> bets in play: a round's wagers as they are placed (the Ante and side bets at
    the deal, the Call or Raise bet at the decision). `link=(model, pk, field)`: the row that
    names this entry, written in the same statement (cashier.posting); or `Link`s and `Row`s
    (a deal's new round naming its entry, and its deck's commitment)."""
    player, round_id = _check_player(player), _check_round_id(round_id)
    amount = _check_amount(amount, what="wager")
    legs = _banked_legs(player=player, wager=amount)
    posted = _banked_post(
        legs=legs,
        reason=Reason.BANKED_BET,
        player=player,
        by=player,
        memo=f"showdown round {round_id}",
        now=now,
        link=link,
    )
    if posted.entry is None:
        wallet = _short(posted, legs, Kind.WALLET)
        raise CashierError(
            "insufficient_funds",
            _("Your wallet holds %(balance)s, not enough for %(amount)s of wagers.")
            % {"balance": dollars(wallet.balance if wallet else 0), "amount": dollars(amount)},
        )
    return posted.entry


def _posted_or_not_in_play(
    posted: Posted, legs: list[Leg], *, round_id: int, amount: int, voiding: bool = False
) -> Entry:
    """The entry, or the refusal of a movement out of bets in play that holds less than
    `amount` (a round settled or voided: the three banked movements out of play share it)."""
    if posted.entry is not None:
        return posted.entry
    in_play = _short(posted, legs, Kind.BANKED_BETS_IN_PLAY)
    values = {
        "balance": dollars(in_play.balance if in_play else 0),
        "round_id": round_id,
        "amount": dollars(amount),
        "staked": dollars(amount),
    }
    if voiding:
        message = _("Only %(balance)s is in play; round %(round_id)s cannot void %(amount)s.")
    else:
        message = _("Only %(balance)s is in play; round %(round_id)s cannot settle %(staked)s.")
    raise CashierError("not_in_play", message % values)


@transaction.atomic(savepoint=False)
def banked_round_settle(*, player, round_id: int, staked: int, net: int, now=None) -> Entry:
    """A settled round: its `staked` cents leave bets in play, the player's wallet gets back
    `staked + net` (stakes of winning wagers plus winnings) and the house's bankroll `-net`.
    A round the player lost entirely pays the wallet nothing and the house every stake."""
    player, round_id = _check_player(player), _check_round_id(round_id)
    staked = _check_amount(staked, what="staked amount")
    net = parse_cents(net, field="net result", minimum=-staked, error=CashierError)
    legs = _banked_legs(player=player, staked=staked, net=net)
    posted = _banked_post(
        legs=legs,
        reason=Reason.BANKED_PAYOUT,
        player=player,
        memo=f"showdown round {round_id}",
        now=now,
    )
    return _posted_or_not_in_play(posted, legs, round_id=round_id, amount=staked)


def banked_decision_settle(
    *,
    player,
    round_id: int,
    bet: int,
    staked: int,
    net: int,
    now=None,
    link: Link | Row | Sequence[Link | Row] | None = None,
    guard: Guard | None = None,
) -> tuple[Entry | None, Entry]:
    """A decided round in one statement: the Call or Raise `bet` (0 on a fold: no entry)
    from the wallet into bets in play, then the settlement of the round's `staked` cents as
    `banked_round_settle` posts it; two entries, each balanced and audited on its own, both
    or neither. `link`: the round's row written by the same statement (`EntryId(0)` the Bet,
    `EntryId(1)` or `EntryId(0)` without a Bet the settlement). Refused as the two services
    are (`insufficient_funds` for the Bet, `not_in_play` for the settlement). `guard`: the
    round's row as the caller read it (cashier.posting.Guard); refused with `moved_on`, and
    nothing posted, when another request changed it meanwhile."""
    player, round_id = _check_player(player), _check_round_id(round_id)
    staked = _check_amount(staked, what="staked amount")
    net = parse_cents(net, field="net result", minimum=-staked, error=CashierError)
    memo = f"showdown round {round_id}"
    entries = []
    bet_legs: list[Leg] = []
    if bet:
        bet = _check_amount(bet, what="wager")
        bet_legs = _banked_legs(player=player, wager=bet)
        entries.append(
            Movement(bet_legs, Reason.BANKED_BET, player=player, created_by=player, memo=memo)
        )
    settle_legs = _banked_legs(player=player, staked=staked, net=net)
    entries.append(Movement(settle_legs, Reason.BANKED_PAYOUT, player=player, memo=memo))
    posted = _banked_post_many(entries=entries, now=now, link=link, guard=guard)
    if posted.entry is None and bet and _short(posted, bet_legs, Kind.WALLET):
        wallet = _short(posted, bet_legs, Kind.WALLET)
        raise CashierError(
            "insufficient_funds",
            _("Your wallet holds %(balance)s, not enough for %(amount)s of wagers.")
            % {"balance": dollars(wallet.balance if wallet else 0), "amount": dollars(bet)},
        )
    if posted.entry is None:
        # What the settlement would find in play: the locked balance plus the Bet.
        in_play = Leg(Kind.BANKED_BETS_IN_PLAY, bet - staked, shard=house_shard(player.pk))
        posted = Posted(None, posted.locked, posted.refusal)
        _posted_or_not_in_play(posted, [in_play], round_id=round_id, amount=staked)
    return (posted.entries[0] if bet else None), posted.entries[-1]


@transaction.atomic(savepoint=False)
def banked_rounds_settle(*, settlements: list[tuple], memo: str, now=None) -> Entry:
    """One live round's seats settled as one entry: `settlements` holds (player, round id,
    staked, net) per seat. Each wallet gets its `staked + net`; bets in play and the house's
    bankroll move by the seats' totals per shard. The entry names no player (it is the room's,
    like a hand's settlement); verify_ledger matches its legs to the rounds that share it."""
    if not settlements:
        raise CashierError("invalid_settlement", _("A settlement needs at least one seat."))
    wallets: dict[int, int] = {}
    in_play: dict[int, int] = {}
    house: dict[int, int] = {}
    for player, round_id, staked, net in settlements:
        player, round_id = _check_player(player), _check_round_id(round_id)
        staked = _check_amount(staked, what="staked amount")
        net = parse_cents(net, field="net result", minimum=-staked, error=CashierError)
        if player.pk in wallets:
            raise CashierError("invalid_settlement", _("A player settles once per round."))
        shard = house_shard(player.pk)
        wallets[player.pk] = staked + net
        in_play[shard] = in_play.get(shard, 0) - staked
        house[shard] = house.get(shard, 0) - net
    legs = [Leg(Kind.WALLET, amount, owner_id=pk, guarded=True) for pk, amount in wallets.items()]
    legs += [
        Leg(Kind.BANKED_BETS_IN_PLAY, amount, shard=shard, guarded=True)
        for shard, amount in sorted(in_play.items())
    ]
    legs += [
        Leg(Kind.HOUSE_BANKROLL, amount, shard=shard) for shard, amount in sorted(house.items())
    ]
    posted = _banked_post(legs=legs, reason=Reason.BANKED_PAYOUT, player=None, memo=memo, now=now)
    return _posted_or_not_in_play(
        posted, legs, round_id=settlements[0][1], amount=-sum(in_play.values())
    )


@transaction.atomic(savepoint=False)
def banked_round_void(*, player, round_id: int, amount: int, now=None) -> Entry:
    """An unfinished round voided after 90 days (RULES.md 6): its wagers in play go to the
    charity account. Caused by the room, not the player; the entry names the player."""
    player, round_id = _check_player(player), _check_round_id(round_id)
    amount = _check_amount(amount, what="voided amount")
    legs = [
        Leg(Kind.BANKED_BETS_IN_PLAY, -amount, shard=house_shard(player.pk), guarded=True),
        Leg(Kind.CHARITY, amount),
    ]
    posted = _banked_post(
        legs=legs,
        reason=Reason.VOID,
        player=player,
        memo=f"showdown round {round_id} voided after 90 days unresolved",
        now=now,
    )
    return _posted_or_not_in_play(posted, legs, round_id=round_id, amount=amount, voiding=True)
