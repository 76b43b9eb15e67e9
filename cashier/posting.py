"""One ledger entry locked, checked and posted in one statement (issue 26).

The busy movements (a hand's settlement, the banked game's wagers and settlements) name their
accounts by what they are (a player's wallet, the stacks at a table, a shard of the house's
accounts), not by id. On PostgreSQL `entry_post_locked` sends one data-modifying WITH statement
that locks those rows in id order (`FOR UPDATE`, so two movements never deadlock), checks the
rules a caller asks for (every account found, no guarded balance below zero, no stack in
another hand), and only if they all hold inserts the entry and its postings, moves the stored
balances, clears the hand's in-hand marks and writes the entry's audit record (its content
hash computed around the new id, audit.services.audit_record_row). It answers with the rows as
they were locked, so a refusal is explained in Python from the same rows and nothing was
written. The deferred balance trigger still checks the entry at commit. The statement's text
does not depend on the legs (arrays; accounts locked by ids the process learnt and the
statement re-checks), so it is prepared once per connection; outside a transaction it is its
own, one round trip. Elsewhere (SQLite, the embedded room) the same steps run one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Model, Q
from django.utils import timezone
from psycopg import Cursor as PgCursor
from psycopg.types.numeric import Int8Dumper

from audit.models import AuditRecord
from audit.services import RECORD_ROW_COLUMNS, RecordRow, Subject, audit_record, audit_record_row
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

# Account ids by (database, Leg.key), per process. An account's identity never changes (the
# ledger's trigger refuses it), so a known id stays right; the statement checks each locked
# row's identity anyway, and a stale id (a test database recreated) is looked up again.
_account_ids: dict[tuple[str, tuple], int] = {}
_ACCOUNT_IDS_MAX = 100_000


def _ids_known(legs: Sequence[Leg], *, look_up: bool) -> dict[tuple, int]:
    """The legs' account ids, looked up (one SELECT, no lock) for those not known yet."""
    database = connection.settings_dict["NAME"]
    known = {leg.key: _account_ids.get((database, leg.key)) for leg in legs}
    missing = [leg for leg in legs if known[leg.key] is None]
    if missing and look_up:
        if len(_account_ids) > _ACCOUNT_IDS_MAX:
            _account_ids.clear()
        for account in Account.objects.filter(_lock_condition(missing, None)).only(
            "id", "kind", "owner_id", "table_id", "shard"
        ):
            known[_key(account)] = account.pk
            _account_ids[(database, _key(account))] = account.pk
    return {key: pk for key, pk in known.items() if pk is not None}


def _ids_forget(legs: Sequence[Leg]) -> None:
    database = connection.settings_dict["NAME"]
    for leg in legs:
        _account_ids.pop((database, leg.key), None)


def _statement(link) -> str:
    """The WITH statement (see the module doc). Its text depends only on `link`'s model, not
    on the legs (passed as arrays), so PostgreSQL plans it once per connection."""
    account, entry, posting = (
        Account._meta.db_table,
        Entry._meta.db_table,
        Posting._meta.db_table,
    )
    record_columns = ", ".join((*RECORD_ROW_COLUMNS, "subject_id", "content_hash"))
    record_values = ", ".join(
        ["%s::timestamptz", "%s::bigint", *["%s::text"] * 5, "%s::jsonb", "%s::text"]
    )
    linked = ""
    if link is not None:
        model, _pk, name = link
        linked = (
            f", linked AS (UPDATE {model._meta.db_table} SET "
            f"{model._meta.get_field(name).column} = entry.id FROM entry "
            f"WHERE {model._meta.db_table}.{model._meta.pk.column} = %s::bigint)"
        )
    return f"""
WITH wanted AS MATERIALIZED (
    SELECT * FROM unnest(%s::bigint[], %s::text[], %s::bigint[], %s::bigint[], %s::int[],
        %s::bigint[], %s::boolean[]) WITH ORDINALITY
        AS w (id, kind, owner_id, table_id, shard, amount, guarded, ord)
), locked AS MATERIALIZED (
    SELECT {_LOCK_COLUMNS} FROM {account}
    WHERE id = ANY(%s::bigint[])
        OR (kind = 'table_stack' AND table_id = %s::bigint AND in_hand_id = %s::bigint)
    ORDER BY id FOR UPDATE
), legs AS MATERIALIZED (
    SELECT l.id AS account_id, l.kind, l.balance, l.in_hand_id, w.amount, w.guarded, w.ord
    FROM wanted w JOIN locked l ON l.id = w.id AND l.kind = w.kind
        AND l.owner_id IS NOT DISTINCT FROM w.owner_id
        AND l.table_id IS NOT DISTINCT FROM w.table_id AND l.shard = w.shard
), ok AS MATERIALIZED (
    SELECT (SELECT count(*) FROM legs) = (SELECT count(*) FROM wanted)
        AND NOT EXISTS (SELECT 1 FROM legs WHERE guarded AND balance + amount < 0)
        AND (%s::bigint IS NULL OR NOT EXISTS (SELECT 1 FROM legs WHERE kind = 'table_stack'
            AND in_hand_id IS NOT NULL AND in_hand_id <> %s::bigint)) AS ok
), entry AS (
    INSERT INTO {entry} ({_ENTRY_COLUMNS})
    SELECT %s::text, %s::bigint, %s::bigint, %s::bigint, %s::text, %s::text, %s::bigint,
        %s::text, %s::timestamptz
    FROM ok WHERE ok.ok ON CONFLICT (hand_id) DO NOTHING
    RETURNING id
), posted AS (
    INSERT INTO {posting} (entry_id, account_id, amount)
    SELECT entry.id, legs.account_id, legs.amount FROM entry, legs
    WHERE legs.amount <> 0 ORDER BY legs.ord
), moves AS (
    SELECT l.id, coalesce(legs.amount, 0) AS amount,
        coalesce(l.in_hand_id = %s::bigint, false) AS ends
    FROM locked l LEFT JOIN legs ON legs.account_id = l.id
), moved AS (
    UPDATE {account} a SET balance = a.balance + moves.amount,
        in_hand_id = CASE WHEN moves.ends THEN NULL ELSE a.in_hand_id END
    FROM entry, moves WHERE a.id = moves.id AND (moves.amount <> 0 OR moves.ends)
), audited AS (
    INSERT INTO {AuditRecord._meta.db_table} ({record_columns})
    SELECT {record_values}, entry.id::text,
        encode(sha256(convert_to(%s::text || entry.id::text || %s::text, 'UTF8')), 'hex')
    FROM entry
){linked}
SELECT (SELECT id FROM entry) AS entry_id, (SELECT ok FROM ok) AS all_ok, {_LOCK_COLUMNS}
FROM locked ORDER BY locked.id
"""


def _prepared_execute(sql, params, many, context):
    """Django's executor, but through a server-side binding cursor that prepares the statement
    (psycopg keeps it per connection): planning the WITH took longer than running it."""
    db = context["connection"]
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        cursor = PgCursor(db.connection)
        # Every whole number as bigint: psycopg would send 1 as smallint and 10**9 as integer,
        # and each mix of types would be prepared as a statement of its own.
        cursor.adapters.register_dumper(int, Int8Dumper)
        cursor.execute(sql, params, prepare=True)
        return cursor


def _run_in_one_statement(
    legs: Sequence[Leg],
    fields: dict,
    end_hand: tuple[int, int] | None,
    busy_hand_id,
    link,
    ids: dict[tuple, int],
    record: RecordRow,
) -> tuple[int | None, bool, list[Account]]:
    wanted_ids = [ids.get(leg.key) for leg in legs]
    params: list = [
        wanted_ids,
        [leg.kind for leg in legs],
        [leg.owner_id for leg in legs],
        [leg.table_id for leg in legs],
        [leg.shard for leg in legs],
        [leg.amount for leg in legs],
        [leg.guarded for leg in legs],
        [pk for pk in wanted_ids if pk is not None],
        end_hand[0] if end_hand is not None else None,
        end_hand[1] if end_hand is not None else None,
        busy_hand_id,
        busy_hand_id,
        *(fields[name] for name in _ENTRY_FIELDS),
        end_hand[1] if end_hand is not None else None,
        *record.values,
        record.text_before,
        record.text_after,
    ]
    if link is not None:
        params.append(link[1])
    sql = _statement(link)
    with connection.cursor() as cursor:
        if getattr(settings, "DB_PREPARED_STATEMENTS", False):
            if hasattr(cursor, "debug_sql"):  # DEBUG: Django logs the statement, as for any
                with cursor.debug_sql(sql, params):
                    raw = cursor._execute_with_wrappers(sql, params, False, _prepared_execute)
            else:
                raw = cursor._execute_with_wrappers(sql, params, False, _prepared_execute)
            rows = raw.fetchall()
        else:
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
    if connection.vendor == "postgresql":
        entry_id, ok, rows = _post_in_one_statement(
            legs, fields, end_hand, busy_hand_id, link, created_by
        )
        locked = {_key(account): account for account in rows}
        if entry_id is None:
            refusal = refusal_of(legs, locked, busy_hand_id=busy_hand_id)
            return Posted(None, locked, refusal or ("settled" if ok else "missing"))
    else:
        with transaction.atomic(savepoint=False):
            entry_id, ok, rows = _run_step_by_step(legs, fields, end_hand, busy_hand_id, link)
            locked = {_key(account): account for account in rows}
            if entry_id is None:
                refusal = refusal_of(legs, locked, busy_hand_id=busy_hand_id)
                return Posted(None, locked, refusal or ("settled" if ok else "missing"))
            # The audit log holds every entry by reference, in the same transaction (audit/).
            audit_record(
                action="ledger.entry",
                actor=created_by,
                subject=Subject("cashier.entry", entry_id, reason),
                payload=_record_payload(legs, fields, {key: a.pk for key, a in locked.items()}),
                now=fields["created_at"],
            )
    entry = Entry(id=entry_id, **fields)
    entry._state.adding, entry._state.db = False, connection.alias
    for account in rows:
        if end_hand is not None and account.in_hand_id == end_hand[1]:
            account.in_hand_id = None
    for leg in legs:
        locked[leg.key].balance += leg.amount
    return Posted(entry, locked)


def _record_payload(legs: Sequence[Leg], fields: dict, ids: dict[tuple, int]) -> dict:
    """The entry's audit record payload (the same on both paths)."""
    return {
        "reason": fields["reason"],
        "player_id": fields["player_id"],
        "table_id": fields["table_id"],
        "hand_id": fields["hand_id"],
        "legs": [[ids.get(leg.key), leg.amount] for leg in legs if leg.amount],
    }


def _post_in_one_statement(
    legs: Sequence[Leg], fields: dict, end_hand, busy_hand_id, link, created_by
) -> tuple[int | None, bool, list[Account]]:
    """PostgreSQL: the one statement, with the entry's audit record in it. Outside a
    transaction it is its own (one round trip; the deferred checks run at its end). An
    account id this process knew but the statement did not find is looked up once more."""
    ids = _ids_known(legs, look_up=True)
    for _attempt in range(2):
        record = audit_record_row(
            action="ledger.entry",
            actor=created_by,
            subject_type="cashier.entry",
            subject_label=fields["reason"],
            payload=_record_payload(legs, fields, ids),
            now=fields["created_at"],
        )
        entry_id, ok, rows = _run_in_one_statement(
            legs, fields, end_hand, busy_hand_id, link, ids, record
        )
        if entry_id is not None or ok:
            break
        found = {_key(account): account.pk for account in rows}
        if all(found.get(leg.key) == ids.get(leg.key) for leg in legs):
            break  # what it knew is what the database holds: a real refusal
        _ids_forget(legs)
        ids = _ids_known(legs, look_up=True)
    return entry_id, ok, rows
