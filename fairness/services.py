"""Provably fair dealing: the seeded shuffle at deal time, its commitment, the reveal.

The tables call `deal_draw` for the deck (inside their own transaction, under their table
lock), `deal_commit` once the deal has its id, and `deal_reveal` when it is over (finished or
cancelled). The secrets (`server_seed`, `salt`) come from `secrets` and stay in the database
until the reveal: never logged, never in a frame (docs/fairness.md).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cashier.posting import Link, Row
from config.errors import Refused
from fairness.models import ClientSeed, Commitment, CommitmentSeat, ServerSeed
from poker.engine import dealer
from poker.engine import fairness as scheme

Kind = Commitment.Kind


class FairnessRefused(Refused):
    """A refused client seed or verification request: `code` and `message`."""


@dataclass(frozen=True)
class Deal:
    """One shuffle and what opens its commitment later; kept in memory until `deal_commit`."""

    deck: list[str]
    commitment: str
    salt: bytes = field(repr=False)
    server_seed: bytes = field(repr=False)
    client_seeds: dict[int, str] = field(repr=False)
    players: dict[int, int] = field(repr=False)
    server_seed_hash: str = ""  # published before the deal (a poker table's), else ""
    server_seed_published_at: datetime | None = None


def client_seed_sql() -> str:
    """A player's client seed (NULL when they have none yet) as one column of a caller's
    SELECT, for the player `%(player)s`: a banked deal reads it with its table."""
    return f"(SELECT seed FROM {ClientSeed._meta.db_table} WHERE player_id = %(player)s)"


def _seeds_for(player_ids: list[int]) -> dict[int, str]:
    """Each player's client seed (user id -> seed) in one read; a random one is drawn and kept
    for those who have none yet (one INSERT, then one read of what was kept: a seed drawn at
    the same moment by another table wins)."""
    seeds = dict(
        ClientSeed.objects.filter(player_id__in=player_ids).values_list("player_id", "seed")
    )
    missing = [user_id for user_id in player_ids if user_id not in seeds]
    if missing:
        ClientSeed.objects.bulk_create(
            [ClientSeed(player_id=user_id, seed=secrets.token_hex(16)) for user_id in missing],
            ignore_conflicts=True,
        )
        seeds.update(
            ClientSeed.objects.filter(player_id__in=missing).values_list("player_id", "seed")
        )
    return seeds


def deal_draw(
    *,
    players: Mapping[int, User],
    shuffle: Callable[[Callable[[int], int]], list[str]] | None = None,
    published: ServerSeed | None = None,
    client_seeds: Mapping[int, str | None] | None = None,
) -> Deal:
    """Shuffle for a deal among `players` (seat -> user): a 32-byte server seed (`published`
    ahead by `table_seed_take`, else a fresh one) keyed over each player's client seed,
    Fisher-Yates over that HMAC stream, and the commitment SHA-256(salt || deck) under a fresh
    salt. `shuffle` is the dealer's Fisher-Yates (looked up at call time, so tests may deal a
    known deck). `client_seeds` (seat -> seed, None when the player has none yet): seeds the
    caller already read (`client_seed_sql`), so only a missing one is looked up or drawn."""
    server_seed = (
        bytes.fromhex(published.seed)
        if published is not None
        else secrets.token_bytes(scheme.SEED_BYTES)
    )
    salt = secrets.token_bytes(scheme.SEED_BYTES)
    known = client_seeds or {}
    unknown = [player.pk for seat, player in players.items() if not known.get(seat)]
    drawn = _seeds_for(unknown) if unknown else {}
    seeds = {int(seat): known.get(seat) or drawn[player.pk] for seat, player in players.items()}
    stream = scheme.HmacStream(scheme.mixed_key(server_seed, seeds))
    deck = list((shuffle or dealer.shuffle_deck)(stream.randbelow))
    return Deal(
        deck=deck,
        commitment=scheme.commitment(deck, salt),
        salt=salt,
        server_seed=server_seed,
        client_seeds=seeds,
        players={int(seat): player.pk for seat, player in players.items()},
        server_seed_hash=published.seed_hash if published is not None else "",
        server_seed_published_at=published.published_at if published is not None else None,
    )


_COMMIT_FIELDS = (
    "kind",
    "ref_id",
    "commitment",
    "salt",
    "server_seed",
    "client_seeds",
    "players",
    "server_seed_hash",
    "server_seed_published_at",
    "created_at",
)


def deal_commit(*, kind: str, ref_id: int, deal: Deal, now: datetime | None = None) -> Commitment:
    """Store a deal's commitment with its secrets and its seats, in the caller's transaction:
    one statement (the commitment and its seats' rows in one WITH)."""
    values = _commit_values(kind=kind, ref_id=ref_id, deal=deal, now=now)
    with connection.cursor() as cursor:
        cursor.execute(_COMMIT_SQL, _commit_params(values, deal.players))
        (pk,) = cursor.fetchone()
    return Commitment.from_db(
        connection.alias, ["id", *_COMMIT_FIELDS], [pk, *(values[n] for n in _COMMIT_FIELDS)]
    )


def commitment_id_sql() -> str:
    """A new commitment's id drawn from its sequence, as a column of a caller's SELECT: a
    banked deal draws it with its read and writes `deal_commit_rows`."""
    return f"nextval(pg_get_serial_sequence('{Commitment._meta.db_table}', 'id'))"


def deal_commit_rows(
    *, kind: str, ref_id: int, deal: Deal, commitment_id: int, now: datetime
) -> list[Row]:
    """`deal_commit`'s rows (the commitment with the id `commitment_id_sql` drew, then its
    seats) as rows a ledger statement inserts with its entries (cashier.posting.Row): a
    banked deal commits its deck in the statement that posts its wagers."""
    values = _commit_values(kind=kind, ref_id=ref_id, deal=deal, now=now)
    return [
        Row(Commitment, {"id": commitment_id, **values}),
        *(
            Row(CommitmentSeat, {"commitment": commitment_id, "player": user_id, "seat": seat})
            for seat, user_id in deal.players.items()
        ),
    ]


def _commit_values(*, kind: str, ref_id: int, deal: Deal, now: datetime | None) -> dict:
    if kind not in Kind.values:
        raise FairnessRefused(
            "bad_kind", _("Unknown kind of deal %(kind)s.") % {"kind": repr(kind)}
        )
    return {
        "kind": kind,
        "ref_id": ref_id,
        "commitment": deal.commitment,
        "salt": deal.salt.hex(),
        "server_seed": deal.server_seed.hex(),
        "client_seeds": {str(seat): seed for seat, seed in deal.client_seeds.items()},
        "players": {str(seat): user_id for seat, user_id in deal.players.items()},
        "server_seed_hash": deal.server_seed_hash,
        "server_seed_published_at": deal.server_seed_published_at,
        "created_at": now or timezone.now(),
    }


def _commit_sql() -> str:
    commitments, seats = Commitment._meta.db_table, CommitmentSeat._meta.db_table
    casts = ["text", "bigint", "text", "text", "text", "jsonb", "jsonb", "text", "timestamptz"]
    return (
        f"WITH c AS (INSERT INTO {commitments} ({', '.join(_COMMIT_FIELDS)}) "
        f"VALUES ({', '.join(f'%s::{cast}' for cast in [*casts, 'timestamptz'])}) RETURNING id), "
        f"s AS (INSERT INTO {seats} (commitment_id, player_id, seat) "
        "SELECT c.id, p.player_id, p.seat FROM c, unnest(%s::bigint[], %s::int[]) "
        "AS p (player_id, seat)) SELECT id FROM c"
    )


_COMMIT_SQL = _commit_sql()


def _commit_params(values: dict, players: dict[int, int]) -> list:
    return [
        *(
            json.dumps(values[name]) if name in ("client_seeds", "players") else values[name]
            for name in _COMMIT_FIELDS
        ),
        list(players.values()),
        list(players),
    ]


def deal_reveal(*, kind: str, ref_id: int, now: datetime | None = None) -> Commitment | None:
    """Open a finished or cancelled deal's commitment to its players (once; None when the
    deal has none, e.g. one dealt before commitments existed)."""
    commitment = Commitment.objects.filter(kind=kind, ref_id=ref_id).order_by("pk").first()
    if commitment is None or commitment.revealed_at is not None:
        return commitment
    commitment.revealed_at = now or timezone.now()
    commitment.save(update_fields=["revealed_at"])
    return commitment


def deal_reveal_stamp(*, kind: str, ref_id: int, now: datetime | None = None) -> bool:
    """`deal_reveal` for a caller that needs nothing back (a banked round's end): one UPDATE
    instead of a read and a write. True when it opened the commitment now; False when it was
    open already or the deal has none."""
    stamped = Commitment.objects.filter(kind=kind, ref_id=ref_id, revealed_at__isnull=True)
    return stamped.update(revealed_at=now or timezone.now()) > 0


def deal_reveal_link(*, kind: str, ref_id: int, now: datetime) -> Link:
    """`deal_reveal_stamp`'s UPDATE as a row a ledger statement writes with its entries
    (cashier.posting.Link): a banked decision opens its deck's commitment in the statement
    that settles it."""
    return Link(
        Commitment,
        None,
        {"revealed_at": now},
        where={"kind": kind, "ref_id": ref_id, "revealed_at": None},
    )


def table_seed_publish(*, table_id: int, now: datetime | None = None) -> ServerSeed:
    """The seed of the table's next hand, drawn now if none is waiting; its hash is public
    from now on (the table's STATE), its secret until that hand is over. Call it under the
    table's lock."""
    pending = ServerSeed.objects.filter(table_id=table_id, taken_at__isnull=True).first()
    if pending is not None:
        return pending
    drawn = _seed_drawn(table_id, now or timezone.now())
    drawn.save(force_insert=True)
    return drawn


def table_seed_take(*, table_id: int, now: datetime | None = None) -> tuple[ServerSeed, ServerSeed]:
    """A hand starts: take the table's published seed for it and publish the next one, in two
    statements (the taken seed stamped and read back by one UPDATE ... RETURNING, the next one
    inserted). Returns (the seed taken, the next). A table with none waiting (dealt before
    seeds were published) draws one now: that hand's seed was published as it was dealt.
    Call it under the table's lock."""
    now = now or timezone.now()
    stamped = ServerSeed._meta.get_field("taken_at").get_db_prep_save(now, connection)
    taken = next(
        iter(
            ServerSeed.objects.raw(
                f"UPDATE {connection.ops.quote_name(ServerSeed._meta.db_table)} "
                "SET taken_at = %s WHERE table_id = %s AND taken_at IS NULL RETURNING *",
                [stamped, table_id],
            )
        ),
        None,
    )
    if taken is not None:
        return taken, ServerSeed.objects.bulk_create([_seed_drawn(table_id, now)])[0]
    taken, upcoming = ServerSeed.objects.bulk_create(
        [_seed_drawn(table_id, now, taken_at=now), _seed_drawn(table_id, now)]
    )
    return taken, upcoming


def _seed_drawn(table_id: int, now: datetime, *, taken_at: datetime | None = None) -> ServerSeed:
    """A new server seed for the table, published `now` (and taken then, with `taken_at`)."""
    seed = secrets.token_bytes(scheme.SEED_BYTES)
    return ServerSeed(
        table_id=table_id,
        seed=seed.hex(),
        seed_hash=scheme.server_seed_hash(seed),
        published_at=now,
        taken_at=taken_at,
    )


def hand_commit(*, hand_id: int, deal: Deal, now: datetime | None = None) -> Commitment:
    """A poker hand's commitment, stored as it is dealt."""
    return deal_commit(kind=Kind.HAND, ref_id=hand_id, deal=deal, now=now)


def hand_reveal(*, hand_id: int, now: datetime | None = None) -> bool:
    """A poker hand is over: its deck, salt and seeds open to its players (one UPDATE, as
    `deal_reveal_stamp`). True when it opened them now; False when the hand has no commitment
    (dealt before commitments existed) or they were open already."""
    return deal_reveal_stamp(kind=Kind.HAND, ref_id=hand_id, now=now)


def client_seed_set(*, player, seed: object, now: datetime | None = None) -> ClientSeed:
    """A player's own client seed, used from their next deal on (a running deal keeps the
    seed it was shuffled with)."""
    try:
        seed = scheme.check_client_seed(seed.strip() if isinstance(seed, str) else seed)
    except ValueError as error:
        message = str(error)[:1].upper() + str(error)[1:] + "."
        raise FairnessRefused("bad_client_seed", message) from None
    with transaction.atomic():
        row, _ = ClientSeed.objects.select_for_update().get_or_create(
            player=player, defaults={"seed": seed}
        )
        row.seed, row.chosen, row.updated_at = seed, True, now or timezone.now()
        row.save(update_fields=["seed", "chosen", "updated_at"])
    return row
