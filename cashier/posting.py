"""One ledger entry locked, checked and posted in one statement (issue 26).

The busy movements (a hand's settlement, the banked game's wagers and settlements) name their
accounts by what they are (a player's wallet, the stacks at a table, a shard of the house's
accounts), not by id. On PostgreSQL `entry_post_locked` sends one data-modifying WITH statement
that locks those rows in id order (`FOR UPDATE`, so two movements never deadlock), checks the
rules a caller asks for (every account found, no guarded balance below zero, no stack in
another hand), and only if they all hold inserts the entry and its postings, moves the stored
balances and clears the hand's in-hand marks. It answers with the rows as they were locked, so
a refusal is explained in Python from the same rows and nothing was written. The deferred
balance trigger still checks the entry at commit; the audit record of the entry follows in the
same transaction. Elsewhere (SQLite, the embedded room) the same steps run one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Model, Q
from django.utils import timezone

from audit.services import Subject, audit_record
from cashier.models import Account, Entry, Posting


@dataclass(frozen=True)
class Leg:
    """One posting, on the account of this kind, owner, table and shard. `guarded`: the
    account may not go below zero by it (a wallet, a stack, bets in play)."""

    kind: str
    amount: int
    owner_id: int | None = None
    table_id: int | None = None
    shard: int = 0
    guarded: bool = False

    @property
    def key(self) -> tuple[str, int | None, int | None, int]:
        return (self.kind, self.owner_id, self.table_id, self.shard)


@dataclass
class Posted:
    """What happened: the entry (None when refused), the rows as they were locked (before
    the movement) by `Leg.key`, and why nothing was posted ("missing": an account of a leg
    does not exist; "below_zero"; "busy": a stack plays another hand; "settled": the hand
    already has its entry)."""

    entry: Entry | None
    locked: dict[tuple, Account] = field(default_factory=dict)
    refusal: str = ""


def _key(account: Account) -> tuple[str, int | None, int | None, int]:
    return (account.kind, account.owner_id, account.table_id, account.shard)


def refusal_of(legs: Sequence[Leg], locked: dict[tuple, Account], *, busy_hand_id=None) -> str:
    """The first rule the locked rows break, or "" (the statement's own checks, in Python)."""
    if any(leg.key not in locked for leg in legs):
        return "missing"
    if any(leg.guarded and locked[leg.key].balance + leg.amount < 0 for leg in legs):
        return "below_zero"
    if busy_hand_id is not None and any(
        locked[leg.key].kind == Account.Kind.TABLE_STACK
        and locked[leg.key].in_hand_id not in (None, busy_hand_id)
        for leg in legs
    ):
        return "busy"
    return ""


def _lock_condition(legs: Sequence[Leg], end_hand: tuple[int, int] | None) -> Q:
    wanted = Q(pk__in=[])
    for leg in legs:
        wanted |= Q(
            kind=leg.kind,
            owner_id=leg.owner_id,
            table_id=leg.table_id,
            shard=leg.shard,
        )
    if end_hand is not None:
        table_id, hand_id = end_hand
        wanted |= Q(kind=Account.Kind.TABLE_STACK, table_id=table_id, in_hand_id=hand_id)
    return wanted


_LOCK_COLUMNS = "id, kind, owner_id, table_id, shard, balance, in_hand_id"
_ENTRY_COLUMNS = (
    "reason, player_id, table_id, hand_id, idempotency_key, request_fingerprint, created_by_id, "
    "memo, created_at"
)


def _statement(
    legs: Sequence[Leg], end_hand: tuple[int, int] | None, busy: bool, on_hand: bool, link
):
    """The WITH statement for these legs and its parameters' order (see the module doc)."""
    account, entry, posting = (
        Account._meta.db_table,
        Entry._meta.db_table,
        Posting._meta.db_table,
    )
    where = []
    for leg in legs:
        owner = "owner_id = %s" if leg.owner_id is not None else "owner_id IS NULL"
        table = "table_id = %s" if leg.table_id is not None else "table_id IS NULL"
        where.append(f"(kind = %s AND {owner} AND {table} AND shard = %s)")
    if end_hand is not None:
        where.append("(kind = 'table_stack' AND table_id = %s AND in_hand_id = %s)")
    values = ", ".join(
        "(%s::text, %s::bigint, %s::bigint, %s::int, %s::bigint, %s::boolean, %s::int)"
        for _ in legs
    )
    busy_sql = (
        "AND NOT EXISTS (SELECT 1 FROM legs WHERE kind = 'table_stack' "
        "AND in_hand_id IS NOT NULL AND in_hand_id <> %s)"
        if busy
        else ""
    )
    conflict = "ON CONFLICT (hand_id) DO NOTHING" if on_hand else ""
    ends = "l.in_hand_id = %s" if end_hand is not None else "false"
    linked = ""
    if link is not None:
        model, _pk, name = link
        linked = (
            f", linked AS (UPDATE {model._meta.db_table} SET "
            f"{model._meta.get_field(name).column} = entry.id FROM entry "
            f"WHERE {model._meta.db_table}.{model._meta.pk.column} = %s)"
        )
    return f"""
WITH locked AS MATERIALIZED (
    SELECT {_LOCK_COLUMNS} FROM {account} WHERE {" OR ".join(where)} ORDER BY id FOR UPDATE
), wanted (kind, owner_id, table_id, shard, amount, guarded, ord) AS (VALUES {values}
), legs AS MATERIALIZED (
    SELECT l.id AS account_id, l.kind, l.balance, l.in_hand_id, w.amount, w.guarded, w.ord
    FROM wanted w JOIN locked l ON l.kind = w.kind
        AND l.owner_id IS NOT DISTINCT FROM w.owner_id
        AND l.table_id IS NOT DISTINCT FROM w.table_id AND l.shard = w.shard
), ok AS MATERIALIZED (
    SELECT (SELECT count(*) FROM legs) = %s
        AND NOT EXISTS (SELECT 1 FROM legs WHERE guarded AND balance + amount < 0)
        {busy_sql} AS ok
), entry AS (
    INSERT INTO {entry} ({_ENTRY_COLUMNS})
    SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s FROM ok WHERE ok.ok {conflict}
    RETURNING id
), posted AS (
    INSERT INTO {posting} (entry_id, account_id, amount)
    SELECT entry.id, legs.account_id, legs.amount FROM entry, legs
    WHERE legs.amount <> 0 ORDER BY legs.ord
), moves AS (
    SELECT l.id, coalesce(legs.amount, 0) AS amount, coalesce({ends}, false) AS ends
    FROM locked l LEFT JOIN legs ON legs.account_id = l.id
), moved AS (
    UPDATE {account} a SET balance = a.balance + moves.amount,
        in_hand_id = CASE WHEN moves.ends THEN NULL ELSE a.in_hand_id END
    FROM entry, moves WHERE a.id = moves.id AND (moves.amount <> 0 OR moves.ends)
){linked}
SELECT (SELECT id FROM entry) AS entry_id, (SELECT ok FROM ok) AS all_ok, {_LOCK_COLUMNS}
FROM locked ORDER BY locked.id
"""


def _run_in_one_statement(
    legs: Sequence[Leg], fields: dict, end_hand: tuple[int, int] | None, busy_hand_id, link
) -> tuple[int | None, bool, list[Account]]:
    on_hand = fields["hand_id"] is not None
    sql = _statement(legs, end_hand, busy_hand_id is not None, on_hand, link)
    params: list = []
    for leg in legs:
        params.append(leg.kind)
        if leg.owner_id is not None:
            params.append(leg.owner_id)
        if leg.table_id is not None:
            params.append(leg.table_id)
        params.append(leg.shard)
    if end_hand is not None:
        params.extend(end_hand)
    for ord_, leg in enumerate(legs):
        params.extend(
            [leg.kind, leg.owner_id, leg.table_id, leg.shard, leg.amount, leg.guarded, ord_]
        )
    params.append(len(legs))
    if busy_hand_id is not None:
        params.append(busy_hand_id)
    params.extend(fields[name] for name in _ENTRY_FIELDS)
    if end_hand is not None:
        params.append(end_hand[1])
    if link is not None:
        params.append(link[1])
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    locked = []
    for _entry_id, _ok, pk, kind, owner_id, table_id, shard, balance, in_hand_id in rows:
        row = Account(
            id=pk,
            kind=kind,
            owner_id=owner_id,
            table_id=table_id,
            shard=shard,
            balance=balance,
            in_hand_id=in_hand_id,
        )
        row._state.adding, row._state.db = False, connection.alias
        locked.append(row)
    entry_id = rows[0][0] if rows else None
    ok = bool(rows[0][1]) if rows else False
    return entry_id, ok, locked


_ENTRY_FIELDS = (
    "reason",
    "player_id",
    "table_id",
    "hand_id",
    "idempotency_key",
    "request_fingerprint",
    "created_by_id",
    "memo",
    "created_at",
)


def _run_step_by_step(
    legs: Sequence[Leg], fields: dict, end_hand: tuple[int, int] | None, busy_hand_id, link
) -> tuple[int | None, bool, list[Account]]:
    locked = list(
        Account.objects.select_for_update().filter(_lock_condition(legs, end_hand)).order_by("pk")
    )
    by_key = {_key(account): account for account in locked}
    if refusal_of(legs, by_key, busy_hand_id=busy_hand_id):
        return None, False, locked
    try:
        with transaction.atomic():
            entry = Entry.objects.create(**fields)
            Posting.objects.bulk_create(
                Posting(entry=entry, account=by_key[leg.key], amount=leg.amount)
                for leg in legs
                if leg.amount
            )
            for leg in legs:
                if leg.amount:
                    Account.objects.filter(pk=by_key[leg.key].pk).update(
                        balance=F("balance") + leg.amount
                    )
            if end_hand is not None:
                Account.objects.filter(pk__in=[a.pk for a in locked]).filter(
                    in_hand_id=end_hand[1]
                ).update(in_hand_id=None)
            if link is not None:
                model, pk, name = link
                model._default_manager.filter(pk=pk).update(**{name: entry})
    except IntegrityError:
        if (
            fields["hand_id"] is None
            or not Entry.objects.filter(hand_id=fields["hand_id"]).exists()
        ):
            raise
        return None, True, locked
    return entry.pk, True, locked


def entry_post_locked(
    *,
    legs: Sequence[Leg],
    reason: str,
    player=None,
    table_id: int | None = None,
    hand_id: int | None = None,
    created_by=None,
    memo: str = "",
    now: datetime | None = None,
    end_hand: tuple[int, int] | None = None,
    busy_hand_id: int | None = None,
    link: tuple[type[Model], int, str] | None = None,
) -> Posted:
    """Lock the legs' accounts (and, with `end_hand=(table id, hand id)`, every stack marked in
    that hand), check and post one entry, clearing those marks; or post nothing and say why.

    The legs' amounts sum to zero and name distinct accounts (the caller's arithmetic, checked
    here before anything is sent). With `busy_hand_id`, a stack of a leg marked in another hand
    refuses the entry. `link=(model, pk, field)` stores the new entry on that row's foreign
    key in the same statement (a round naming the entry that moved its wagers). Call inside
    the caller's transaction; a refusal leaves it usable.
    """
    if sum(leg.amount for leg in legs) != 0 or len({leg.key for leg in legs}) != len(legs):
        raise ValueError("an entry's legs sum to zero and name each account once")
    fields = {
        "reason": reason,
        "player_id": player.pk if player is not None else None,
        "table_id": table_id,
        "hand_id": hand_id,
        "idempotency_key": None,
        "request_fingerprint": "",
        "created_by_id": created_by.pk if created_by is not None else None,
        "memo": memo,
        "created_at": now or timezone.now(),
    }
    run = _run_in_one_statement if connection.vendor == "postgresql" else _run_step_by_step
    with transaction.atomic(savepoint=False):
        entry_id, ok, rows = run(legs, fields, end_hand, busy_hand_id, link)
        locked = {_key(account): account for account in rows}
        if entry_id is None:
            refusal = refusal_of(legs, locked, busy_hand_id=busy_hand_id)
            return Posted(None, locked, refusal or ("settled" if ok else "missing"))
        entry = Entry(id=entry_id, **fields)
        entry._state.adding, entry._state.db = False, connection.alias
        # The audit log holds every entry by reference, in the same transaction (audit/).
        audit_record(
            action="ledger.entry",
            actor=created_by,
            subject=Subject("cashier.entry", entry.pk, reason),
            payload={
                "reason": reason,
                "player_id": fields["player_id"],
                "table_id": table_id,
                "hand_id": hand_id,
                "legs": [[locked[leg.key].pk, leg.amount] for leg in legs if leg.amount],
            },
            now=entry.created_at,
        )
    for account in rows:
        if end_hand is not None and account.in_hand_id == end_hand[1]:
            account.in_hand_id = None
    for leg in legs:
        locked[leg.key].balance += leg.amount
    return Posted(entry, locked)
