"""One ledger entry locked, checked and posted in one statement.

The busy movements (a hand's settlement, the banked game's wagers and settlements) name their
accounts by what they are (a player's wallet, the stacks at a table, a shard of the house's
accounts), not by id. `entry_post_locked` sends one data-modifying WITH statement
that locks those rows in id order (`FOR UPDATE`, so two movements never deadlock), checks the
rules a caller asks for (every account found, no guarded balance below zero, no stack in
another hand), and only if they all hold inserts the entry and its postings, moves the stored
balances, clears the hand's in-hand marks and writes the entry's audit record (its content
hash computed around the new id, audit.services.audit_record_row). `entries_post_locked` posts
several entries so (a banked decision's Bet and settlement): each balances and is audited on
its own, every guarded balance is checked after each entry in turn, and all or none are
posted. `Link`s write the rows that name the entries (a round, its deck's reveal) in the same
statement. It answers with the rows as they were locked, so a refusal is explained in Python
from the same rows and nothing was written. The deferred balance trigger still checks each
entry at commit. The statement's text does not depend on the legs (arrays; accounts locked by
ids the process learnt and the statement re-checks), so it is prepared once per connection;
outside a transaction it is its own, one round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from django.conf import settings
from django.db import connection, connections
from django.db.models import Field, Model, Q
from django.utils import timezone
from psycopg import RawCursor
from psycopg.types.numeric import Int8Dumper

from audit.models import AuditRecord
from audit.services import RECORD_ROW_COLUMNS, RecordRow, audit_record_row
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


@dataclass(frozen=True)
class Movement:
    """One entry of a statement that posts several (`entries_post_locked`): its legs and what
    the entry says (reason, player, table, hand, who made it, memo)."""

    legs: Sequence[Leg]
    reason: str
    player: object = None
    table_id: int | None = None
    hand_id: int | None = None
    created_by: object = None
    memo: str = ""


@dataclass(frozen=True)
class EntryId:
    """In a `Link`'s values: the id of the statement's entry number `n` (from 0)."""

    n: int


@dataclass(frozen=True)
class Link:
    """One row written by the same statement once its entries are posted (never on a
    refusal): `model`'s row `pk` (or, with `pk=None`, the rows matching `where`: field name ->
    value, None for IS NULL) gets `values` (field name -> value, or `EntryId(n)` for the id of
    the n-th entry). The fields are the call site's, so the statement's text stays one."""

    model: type[Model]
    pk: int | None
    values: dict
    where: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    """One row inserted by the same statement once its entries are posted (never on a
    refusal), passed with the `Link`s: `model`'s fields `values` (field name -> value, or
    `EntryId(n)`), its id among them when other rows of the statement name it (drawn by the
    caller from the model's sequence). A banked deal inserts its round and its deck's
    commitment so."""

    model: type[Model]
    values: dict


@dataclass(frozen=True)
class Guard:
    """A row that must still be as the caller read it for the statement to post anything:
    `model`'s row `pk` where `where` holds (field name -> value, None for IS NULL), locked
    (`FOR UPDATE`) before the accounts. A caller that read the row without a lock posts only
    if nobody changed it meanwhile (a banked decision: its round still dealt); otherwise
    nothing is posted and `Posted.refusal` is "moved_on"."""

    model: type[Model]
    pk: int
    where: dict


@dataclass
class Posted:
    """What happened: the entry (None when refused), the rows as they were locked (before
    the movement) by `Leg.key`, and why nothing was posted ("missing": an account of a leg
    does not exist; "below_zero"; "busy": a stack plays another hand; "settled": the hand
    already has its entry; "moved_on": the `Guard`'s row is no longer as it was read)."""

    entry: Entry | None
    locked: dict[tuple, Account] = field(default_factory=dict)
    refusal: str = ""
    # Every entry of the statement, in the order of its movements ([] when refused).
    entries: list[Entry] = field(default_factory=list)


def _key(account: Account) -> tuple[str, int | None, int | None, int]:
    return (account.kind, account.owner_id, account.table_id, account.shard)


def refusal_of(legs: Sequence[Leg], locked: dict[tuple, Account], *, busy_hand_id=None) -> str:
    """The first rule the locked rows break, or "" (the statement's own checks, in Python)."""
    return _refusal([legs], locked, busy_hand_id=busy_hand_id)


def _refusal(
    entries: Sequence[Sequence[Leg]], locked: dict[tuple, Account], *, busy_hand_id=None
) -> str:
    """`refusal_of` for several entries posted in turn: a guarded account may not go below
    zero after any of them (a wallet pays a Bet before the settlement pays it back)."""
    legs = [leg for entry_legs in entries for leg in entry_legs]
    if any(leg.key not in locked for leg in legs):
        return "missing"
    running: dict[tuple, int] = {}
    for entry_legs in entries:
        for leg in entry_legs:
            running[leg.key] = running.get(leg.key, locked[leg.key].balance) + leg.amount
        if any(leg.guarded and running[leg.key] < 0 for leg in entry_legs):
            return "below_zero"
    if busy_hand_id is not None and any(
        locked[leg.key].kind == Account.Kind.TABLE_STACK
        and locked[leg.key].in_hand_id not in (None, busy_hand_id)
        for leg in legs
    ):
        return "busy"
    return ""


def _lock_condition(legs: Sequence[Leg]) -> Q:
    wanted = Q(pk__in=[])
    for leg in legs:
        wanted |= Q(
            kind=leg.kind,
            owner_id=leg.owner_id,
            table_id=leg.table_id,
            shard=leg.shard,
        )
    return wanted


_LOCK_COLUMNS = "id, kind, owner_id, table_id, shard, balance, in_hand_id"
_ENTRY_FIELDS = (
    "reason",
    "player_id",
    "table_id",
    "hand_id",
    "idempotency_key",
    "request_fingerprint",
    "created_by_id",
    "memo",
)
_ENTRY_TYPES = ("text", "bigint", "bigint", "bigint", "text", "text", "bigint", "text")

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
        for account in Account.objects.filter(_lock_condition(missing)).only(
            "id", "kind", "owner_id", "table_id", "shard"
        ):
            known[_key(account)] = account.pk
            _account_ids[(database, _key(account))] = account.pk
    return {key: pk for key, pk in known.items() if pk is not None}


def _ids_forget(legs: Sequence[Leg]) -> None:
    database = connection.settings_dict["NAME"]
    for leg in legs:
        _account_ids.pop((database, leg.key), None)


def _links(link: Link | Row | Sequence[Link | Row] | None) -> tuple[Link | Row, ...]:
    if link is None:
        return ()
    return (link,) if isinstance(link, Link | Row) else tuple(link)


def _link_shape(links: tuple[Link | Row, ...]) -> tuple:
    """What the statement's text depends on in its links: per link the model, per value a
    cast or the number of the entry whose id it takes, and which conditions are IS NULL (a
    `Row` has no conditions: None)."""
    return tuple(
        (
            link.model,
            tuple(
                (name, value.n if isinstance(value, EntryId) else None)
                for name, value in link.values.items()
            ),
            link.pk is not None if isinstance(link, Link) else None,
            tuple((name, value is None) for name, value in link.where.items())
            if isinstance(link, Link)
            else None,
        )
        for link in links
    )


def _field(model: type[Model], name: str) -> Field:
    """A concrete column of `model` (the entries name only those)."""
    return cast(Field, model._meta.get_field(name))


def _link_value_sql(model: type[Model], name: str, n: int | None) -> str:
    if n is not None:
        return f"(SELECT id FROM ids WHERE ids.n = {int(n) + 1})"
    return f"%s::{_field(model, name).db_type(connection)}"


def _link_sql(shape: tuple) -> str:
    ctes = []
    for number, (model, fields, by_pk, where) in enumerate(shape):
        if where is None:  # a Row
            columns = ", ".join(model._meta.get_field(name).column for name, _n in fields)
            values = ", ".join(_link_value_sql(model, name, n) for name, n in fields)
            ctes.append(
                f", linked{number} AS (INSERT INTO {model._meta.db_table} ({columns}) "
                f"SELECT {values} WHERE EXISTS (SELECT 1 FROM entry))"
            )
            continue
        sets = []
        for name, n in fields:
            model_field = model._meta.get_field(name)
            sets.append(f"{model_field.column} = {_link_value_sql(model, name, n)}")
        conditions = [*_conditions_sql(model, where, by_pk=by_pk), "EXISTS (SELECT 1 FROM entry)"]
        ctes.append(
            f", linked{number} AS (UPDATE {model._meta.db_table} SET {', '.join(sets)} "
            f"WHERE {' AND '.join(conditions)})"
        )
    return "".join(ctes)


def _conditions_sql(model, where: tuple, *, by_pk: bool) -> list[str]:
    """A row's WHERE conditions (its key first when `by_pk`; each (field, is NULL) of `where`
    as IS NULL or a typed parameter), as a link's UPDATE and a guard's lock name the row."""
    conditions = [f"{model._meta.pk.column} = %s::bigint"] if by_pk else []
    for name, is_null in where:
        model_field = model._meta.get_field(name)
        conditions.append(
            f"{model_field.column} IS NULL"
            if is_null
            else f"{model_field.column} = %s::{model_field.db_type(connection)}"
        )
    return conditions


def _link_params(links: tuple[Link | Row, ...]) -> list:
    # The connection itself, not Django's proxy (which looks it up again on every attribute
    # each field's preparation reads: thousands of look-ups a second at a busy table).
    db = connections[connection.alias]
    params: list = []
    for link in links:
        params += [
            _field(link.model, name).get_db_prep_save(value, db)
            for name, value in link.values.items()
            if not isinstance(value, EntryId)
        ]
        if isinstance(link, Row):
            continue
        if link.pk is not None:
            params.append(link.pk)
        params += [
            _field(link.model, name).get_db_prep_save(value, db)
            for name, value in link.where.items()
            if value is not None
        ]
    return params


_statements: dict[tuple, str] = {}


def _guard_shape(guard: Guard | None) -> tuple | None:
    if guard is None:
        return None
    return (guard.model, tuple((name, value is None) for name, value in guard.where.items()))


def _guard_sql(shape: tuple | None) -> str:
    """The guard's CTE (a row locked as the caller read it), or one that always holds."""
    if shape is None:
        return "guarded AS MATERIALIZED (SELECT 1)"
    model, where = shape
    conditions = _conditions_sql(model, where, by_pk=True)
    return (
        f"guarded AS MATERIALIZED (SELECT 1 FROM {model._meta.db_table} "
        f"WHERE {' AND '.join(conditions)} FOR UPDATE)"
    )


def _guard_params(guard: Guard | None) -> list:
    if guard is None:
        return []
    return [guard.pk] + [
        _field(guard.model, name).get_db_prep_save(value, connection)
        for name, value in guard.where.items()
        if value is not None
    ]


def _statement(count: int, link_shape: tuple, guard_shape: tuple | None = None) -> str:
    """The WITH statement (see the module doc) for `count` entries. Its text depends only on
    that and the links' shape, not on the legs (passed as arrays), so PostgreSQL plans it once
    per connection and kind of movement. The entries' columns and their audit records go as
    one row of values each (scalars: cheaper to send than arrays)."""
    key = (count, link_shape, guard_shape)
    if key in _statements:
        return _statements[key]
    account, entry, posting = (
        Account._meta.db_table,
        Entry._meta.db_table,
        Posting._meta.db_table,
    )
    record_columns = ", ".join((*RECORD_ROW_COLUMNS, "subject_id", "content_hash"))
    # created_at, actor_id, five texts, payload (as text), reason; the hash's text around the id
    record_row = ", ".join(["%s::timestamptz", "%s::bigint", *(["%s::text"] * 9)])
    record_rows = ", ".join(f"({n}, {record_row})" for n in range(1, count + 1))
    record_names = ", ".join(RECORD_ROW_COLUMNS)
    record_values = ", ".join(
        f"r.{name}::jsonb" if name == "payload" else f"r.{name}" for name in RECORD_ROW_COLUMNS
    )
    entry_row = ", ".join(f"%s::{kind}" for kind in _ENTRY_TYPES)
    entry_rows = ", ".join(f"({n}, {entry_row})" for n in range(1, count + 1))
    entry_names = ", ".join(_ENTRY_FIELDS)
    sql = f"""
WITH {_guard_sql(guard_shape)}, wanted AS MATERIALIZED (
    SELECT * FROM unnest(%s::bigint[], %s::text[], %s::bigint[], %s::bigint[], %s::int[],
        %s::bigint[], %s::boolean[], %s::int[]) WITH ORDINALITY
        AS w (id, kind, owner_id, table_id, shard, amount, guarded, n, ord)
), locked AS MATERIALIZED (
    SELECT {_LOCK_COLUMNS} FROM {account}
    WHERE (id = ANY(%s::bigint[])
        OR (kind = 'table_stack' AND table_id = %s::bigint AND in_hand_id = %s::bigint))
        AND EXISTS (SELECT 1 FROM guarded)
    ORDER BY id FOR UPDATE
), legs AS MATERIALIZED (
    SELECT l.id AS account_id, l.kind, l.balance, l.in_hand_id, w.amount, w.guarded, w.n, w.ord
    FROM wanted w JOIN locked l ON l.id = w.id AND l.kind = w.kind
        AND l.owner_id IS NOT DISTINCT FROM w.owner_id
        AND l.table_id IS NOT DISTINCT FROM w.table_id AND l.shard = w.shard
), ok AS MATERIALIZED (
    SELECT (SELECT count(*) FROM legs) = (SELECT count(*) FROM wanted)
        AND NOT EXISTS (SELECT 1 FROM legs g WHERE g.guarded AND g.balance + (
            SELECT sum(h.amount) FROM legs h WHERE h.account_id = g.account_id AND h.n <= g.n
        ) < 0)
        AND (%s::bigint IS NULL OR NOT EXISTS (SELECT 1 FROM legs WHERE kind = 'table_stack'
            AND in_hand_id IS NOT NULL AND in_hand_id <> %s::bigint)) AS ok
), ids AS MATERIALIZED (
    SELECT e.*, nextval(pg_get_serial_sequence('{entry}', 'id')::regclass) AS id
    FROM (VALUES {entry_rows}) AS e (n, {entry_names}), ok
    WHERE ok.ok
), entry AS (
    INSERT INTO {entry} (id, {entry_names}, created_at)
    SELECT id, {entry_names}, %s::timestamptz FROM ids ORDER BY n
    ON CONFLICT (hand_id) DO NOTHING
    RETURNING id
), posted AS (
    INSERT INTO {posting} (entry_id, account_id, amount)
    SELECT ids.id, legs.account_id, legs.amount FROM legs JOIN ids ON ids.n = legs.n
    WHERE legs.amount <> 0 AND ids.id IN (SELECT id FROM entry) ORDER BY legs.ord
), moves AS (
    SELECT l.id,
        coalesce((SELECT sum(legs.amount) FROM legs WHERE legs.account_id = l.id), 0)::bigint
            AS amount,
        coalesce(l.in_hand_id = %s::bigint, false) AS ends
    FROM locked l
), moved AS (
    UPDATE {account} a SET balance = a.balance + moves.amount,
        in_hand_id = CASE WHEN moves.ends THEN NULL ELSE a.in_hand_id END
    FROM moves WHERE a.id = moves.id AND (moves.amount <> 0 OR moves.ends)
        AND EXISTS (SELECT 1 FROM entry)
), audited AS (
    INSERT INTO {AuditRecord._meta.db_table} ({record_columns})
    SELECT {record_values}, ids.id::text,
        encode(sha256(convert_to(r.text_before || ids.id::text || r.text_after, 'UTF8')), 'hex')
    FROM (VALUES {record_rows}) AS r (n, {record_names}, text_before, text_after)
        JOIN ids ON ids.n = r.n
    WHERE ids.id IN (SELECT id FROM entry)
    ORDER BY r.n
){_link_sql(link_shape)}
SELECT (SELECT array_agg(ids.id ORDER BY ids.n) FROM ids WHERE ids.id IN (SELECT id FROM entry))
    AS entry_ids, (SELECT ok FROM ok) AS all_ok, EXISTS (SELECT 1 FROM guarded) AS held,
    {", ".join(f"locked.{name}" for name in _LOCK_COLUMNS.split(", "))}
FROM (SELECT 1) AS one LEFT JOIN locked ON true ORDER BY locked.id
"""
    _statements[key] = sql
    return sql


_numbered: dict[str, str] = {}


def _numbered_placeholders(sql: str) -> str:
    """The statement with PostgreSQL's own `$1, $2, ...` for its `%s` (it holds no other `%`),
    once per text: psycopg's raw cursor sends it as it is, where its ordinary cursor parsed
    the whole text on every call (psycopg caches only short statements with few parameters)."""
    if sql not in _numbered:
        parts = sql.split("%s")
        _numbered[sql] = "".join(
            f"{part}${n}" if n < len(parts) else part for n, part in enumerate(parts, 1)
        )
    return _numbered[sql]


def _prepared_execute(sql, params, many, context):
    """Django's executor, but through a server-side binding cursor that prepares the statement
    (psycopg keeps it per connection): planning the WITH took longer than running it."""
    db = context["connection"]
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        cursor = RawCursor(db.connection)
        sql = _numbered_placeholders(sql)
        # Every whole number as bigint: psycopg would send 1 as smallint and 10**9 as integer,
        # and each mix of types would be prepared as a statement of its own.
        cursor.adapters.register_dumper(int, Int8Dumper)
        cursor.execute(sql, params, prepare=True)
        return cursor


def _run_in_one_statement(
    entries: Sequence[Movement],
    fields: list[dict],
    now: datetime,
    end_hand: tuple[int, int] | None,
    busy_hand_id,
    links: tuple[Link | Row, ...],
    ids: dict[tuple, int],
    records: list[RecordRow],
    guard: Guard | None = None,
) -> tuple[list[int], bool, list[Account], bool]:
    legs = [leg for movement in entries for leg in movement.legs]
    wanted_ids = [ids.get(leg.key) for leg in legs]
    params: list = [
        *_guard_params(guard),
        wanted_ids,
        [leg.kind for leg in legs],
        [leg.owner_id for leg in legs],
        [leg.table_id for leg in legs],
        [leg.shard for leg in legs],
        [leg.amount for leg in legs],
        [leg.guarded for leg in legs],
        [n + 1 for n, movement in enumerate(entries) for _leg in movement.legs],
        [pk for pk in wanted_ids if pk is not None],
        end_hand[0] if end_hand is not None else None,
        end_hand[1] if end_hand is not None else None,
        busy_hand_id,
        busy_hand_id,
        *(entry_fields[name] for entry_fields in fields for name in _ENTRY_FIELDS),
        now,
        end_hand[1] if end_hand is not None else None,
        *(
            value
            for record in records
            for value in (*record.values, record.text_before, record.text_after)
        ),
        *_link_params(links),
    ]
    sql = _statement(len(entries), _link_shape(links), _guard_shape(guard))
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
    for _entry_ids, _ok, _held, pk, kind, owner_id, table_id, shard, balance, in_hand_id in rows:
        if pk is None:  # no account locked (the row that carries the flags alone)
            continue
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
    entry_ids = list(rows[0][0] or [])
    return entry_ids, bool(rows[0][1]), locked, bool(rows[0][2])


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
    link: tuple[type[Model], int, str] | Link | Row | Sequence[Link | Row] | None = None,
) -> Posted:
    """Lock the legs' accounts (and, with `end_hand=(table id, hand id)`, every stack marked in
    that hand), check and post one entry, clearing those marks; or post nothing and say why.

    The legs' amounts sum to zero and name distinct accounts (the caller's arithmetic, checked
    here before anything is sent). With `busy_hand_id`, a stack of a leg marked in another hand
    refuses the entry. `link=(model, pk, field)` stores the new entry on that row's foreign
    key in the same statement (a round naming the entry that moved its wagers); a `Link`
    writes more of that row. Call inside the caller's transaction; a refusal leaves it usable.
    """
    if isinstance(link, tuple):
        model, pk, name = link
        link = Link(model, pk, {name: EntryId(0)})
    movement = Movement(legs, reason, player, table_id, hand_id, created_by, memo)
    return entries_post_locked(
        entries=[movement], now=now, end_hand=end_hand, busy_hand_id=busy_hand_id, link=link
    )


def entries_post_locked(
    *,
    entries: Sequence[Movement],
    now: datetime | None = None,
    end_hand: tuple[int, int] | None = None,
    busy_hand_id: int | None = None,
    link: Link | Row | Sequence[Link | Row] | None = None,
    guard: Guard | None = None,
) -> Posted:
    """`entry_post_locked` for several entries in one statement (a banked decision's Bet and
    settlement): each balances on its own and gets its own audit record; their accounts are
    locked once and each guarded account is checked after every entry in turn; all of them
    are posted, or none (then `refusal` says why, as for one entry). `Posted.entry` is the
    last entry, `Posted.entries` all of them in order. With a `guard`, nothing is posted
    unless its row is still as the caller read it (refusal "moved_on")."""
    if not entries:
        raise ValueError("a statement posts at least one entry")
    for movement in entries:
        keys = {leg.key for leg in movement.legs}
        if sum(leg.amount for leg in movement.legs) != 0 or len(keys) != len(movement.legs):
            raise ValueError("an entry's legs sum to zero and name each account once")
    now = now or timezone.now()
    fields = [_entry_fields(movement) for movement in entries]
    links = _links(link)
    entry_ids, ok, rows, held = _post_in_one_statement(
        entries, fields, now, end_hand, busy_hand_id, links, guard
    )
    locked = {_key(account): account for account in rows}
    if not held:
        return Posted(None, locked, "moved_on")
    if not entry_ids:
        refusal = _refusal([m.legs for m in entries], locked, busy_hand_id=busy_hand_id)
        return Posted(None, locked, refusal or ("settled" if ok else "missing"))
    posted_entries = []
    for entry_fields, entry_id in zip(fields, entry_ids, strict=True):
        entry = Entry(id=entry_id, **entry_fields, created_at=now)
        entry._state.adding, entry._state.db = False, connection.alias
        posted_entries.append(entry)
    for account in rows:
        if end_hand is not None and account.in_hand_id == end_hand[1]:
            account.in_hand_id = None
    for movement in entries:
        for leg in movement.legs:
            locked[leg.key].balance += leg.amount
    return Posted(posted_entries[-1], locked, entries=posted_entries)


def _entry_fields(movement: Movement) -> dict:
    return {
        "reason": movement.reason,
        "player_id": getattr(movement.player, "pk", None),
        "table_id": movement.table_id,
        "hand_id": movement.hand_id,
        "idempotency_key": None,
        "request_fingerprint": "",
        "created_by_id": getattr(movement.created_by, "pk", None),
        "memo": movement.memo,
    }


def _record_payload(legs: Sequence[Leg], fields: dict, ids: dict[tuple, int]) -> dict:
    """The entry's audit record payload."""
    return {
        "reason": fields["reason"],
        "player_id": fields["player_id"],
        "table_id": fields["table_id"],
        "hand_id": fields["hand_id"],
        "legs": [[ids.get(leg.key), leg.amount] for leg in legs if leg.amount],
    }


def _post_in_one_statement(
    entries: Sequence[Movement], fields: list[dict], now, end_hand, busy_hand_id, links, guard=None
) -> tuple[list[int], bool, list[Account], bool]:
    """The one statement, with the entries' audit records in it. Outside a
    transaction it is its own (one round trip; the deferred checks run at its end). An
    account id this process knew but the statement did not find is looked up once more."""
    legs = [leg for movement in entries for leg in movement.legs]
    ids = _ids_known(legs, look_up=True)
    for _attempt in range(2):
        records = [
            audit_record_row(
                action="ledger.entry",
                actor=movement.created_by,
                subject_type="cashier.entry",
                subject_label=movement.reason,
                payload=_record_payload(movement.legs, entry_fields, ids),
                now=now,
            )
            for movement, entry_fields in zip(entries, fields, strict=True)
        ]
        entry_ids, ok, rows, held = _run_in_one_statement(
            entries, fields, now, end_hand, busy_hand_id, links, ids, records, guard
        )
        if entry_ids or ok or not held:
            break
        found = {_key(account): account.pk for account in rows}
        if all(found.get(leg.key) == ids.get(leg.key) for leg in legs):
            break  # what it knew is what the database holds: a real refusal
        _ids_forget(legs)
        ids = _ids_known(legs, look_up=True)
    return entry_ids, ok, rows, held
