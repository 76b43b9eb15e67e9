"""Tournaments' checks for `manage.py verify_ledger`: each prize pool is what its Sit & Go says.

The cashier sees a pool only as an account with a tournament's id; what it should hold is
here: while a Sit & Go registers or runs, the buy-ins of its active registrations; once it is
finished or cancelled, nothing. Every registration's buy-in (and refund) entry is that
player's movement of that tournament for exactly its buy-in and fee.
`TournamentsConfig.ready()` registers the check with the cashier, which never imports us.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Q, Sum

from cashier.models import Account, Entry, Posting
from cashier.verify import LedgerCheck
from tournaments.models import Registration, Tournament

Kind = Account.Kind
Reason = Entry.Reason
OPEN = (Tournament.Status.REGISTERING, Tournament.Status.RUNNING)
BATCH = 500


def _pools_unlike_tournaments() -> Iterator[str]:
    pools = dict(
        Account.objects.filter(kind=Kind.TOURNAMENT_POOL).values_list("tournament_id", "balance")
    )
    expected = dict(
        Registration.objects.filter(status=Registration.Status.ACTIVE, tournament__status__in=OPEN)
        .values("tournament_id")
        .annotate(total=Sum("buy_in"))
        .values_list("tournament_id", "total")
        .order_by()
    )
    statuses = dict(
        Tournament.objects.filter(Q(pk__in=list(pools)) | Q(pk__in=list(expected))).values_list(
            "pk", "status"
        )
    )
    for tournament_id in sorted(set(pools) | set(expected)):
        status = statuses.get(tournament_id)
        held = pools.get(tournament_id, 0)
        if status is None:
            yield f"a prize pool names tournament #{tournament_id}, which does not exist"
            continue
        want = expected.get(tournament_id, 0) if status in OPEN else 0
        if held != want:
            what = (
                "its active registrations' buy-ins" if status in OPEN else f"nothing once {status}"
            )
            yield (
                f"tournament #{tournament_id} ({status}): its prize pool holds {held}, "
                f"but should hold {want} ({what})"
            )


def _registrations_unlike_entries() -> Iterator[str]:
    """Each registration's buy-in entry (and refund entry) moves its buy-in and fee for its
    player in its tournament. Read in batches: three queries per 500 registrations."""
    registrations = Registration.objects.values(
        "id", "tournament_id", "player_id", "buy_in", "fee", "entry_id", "refund_entry_id"
    ).order_by("id")
    batch: list[dict] = []
    for registration in registrations.iterator(chunk_size=BATCH):
        batch.append(registration)
        if len(batch) == BATCH:
            yield from _check_batch(batch)
            batch = []
    yield from _check_batch(batch)


def _check_batch(batch: list[dict]) -> Iterator[str]:
    ids = [r[f] for r in batch for f in ("entry_id", "refund_entry_id") if r[f] is not None]
    entries = {
        e["id"]: e
        for e in Entry.objects.filter(pk__in=ids).values("id", "reason", "player_id",
                                                          "tournament_id")
    }  # fmt: skip
    legs: dict[int, list] = {}
    for entry_id, kind, amount in Posting.objects.filter(entry_id__in=ids).values_list(
        "entry_id", "account__kind", "amount"
    ):
        legs.setdefault(entry_id, []).append((kind, amount))
    for registration in batch:
        total = registration["buy_in"] + registration["fee"]
        for field, reason, sign in (
            ("entry_id", Reason.TOURNAMENT_BUY_IN, 1),
            ("refund_entry_id", Reason.TOURNAMENT_REFUND, -1),
        ):
            entry_id = registration[field]
            if entry_id is None:
                continue
            entry = entries.get(entry_id)
            posted = sorted(legs.get(entry_id, []))
            want = sorted(
                [(Kind.TOURNAMENT_POOL.value, sign * registration["buy_in"]),
                 (Kind.WALLET.value, -sign * total)]
                + ([(Kind.TOURNAMENT_FEES.value, sign * registration["fee"])]
                   if registration["fee"] else [])
            )  # fmt: skip
            if (
                entry is None
                or entry["reason"] != reason
                or entry["player_id"] != registration["player_id"]
                or entry["tournament_id"] != registration["tournament_id"]
                or posted != want
            ):
                yield (
                    f"registration #{registration['id']} (player #{registration['player_id']}, "
                    f"tournament #{registration['tournament_id']}): entry #{entry_id} is not "
                    f"its {reason} of {total} (legs {posted}, expected {want})"
                )


def _prizes_unlike_places() -> Iterator[str]:
    """A finished Sit & Go's one prize entry pays each registration its recorded prize, and
    nothing to anyone else; a prize entry names a finished Sit & Go that points at it."""
    # Finished, or cancelled after play began (settled by the published split in one entry).
    finished = dict(
        Tournament.objects.filter(
            Q(status=Tournament.Status.FINISHED)
            | Q(status=Tournament.Status.CANCELLED, payout_entry_id__isnull=False)
        ).values_list("pk", "payout_entry_id")
    )
    entries = {
        e.pk: e for e in Entry.objects.filter(reason=Reason.TOURNAMENT_PAYOUT).order_by("id")
    }
    for entry in entries.values():
        if finished.get(entry.tournament_id) != entry.pk:
            yield (
                f"prize entry #{entry.pk} is not the prizes of finished tournament "
                f"#{entry.tournament_id}"
            )
    prizes: dict[int, dict[int, int]] = {}
    for tid, player, prize in Registration.objects.filter(
        tournament_id__in=list(finished), prize__gt=0
    ).values_list("tournament_id", "player_id", "prize"):
        prizes.setdefault(tid, {})[player] = prize
    paid: dict[int, dict[int, int]] = {}
    for entry_id, owner, amount in Posting.objects.filter(
        entry_id__in=list(entries), account__kind=Kind.WALLET
    ).values_list("entry_id", "account__owner_id", "amount"):
        paid.setdefault(entry_id, {})[owner] = amount
    for tid, entry_id in sorted(finished.items()):
        if entry_id is None or entry_id not in entries:
            yield f"finished tournament #{tid} has no prize entry"
        elif paid.get(entry_id, {}) != prizes.get(tid, {}):
            yield (
                f"tournament #{tid}: prize entry #{entry_id} pays {paid.get(entry_id, {})}, "
                f"its places' prizes are {prizes.get(tid, {})}"
            )


def _pools_and_registrations() -> Iterator[str]:
    yield from _pools_unlike_tournaments()
    yield from _registrations_unlike_entries()
    yield from _prizes_unlike_places()


POOLS_MATCH_TOURNAMENTS = LedgerCheck(
    "tournament_pools_match_tournaments",
    "a Sit & Go's prize pool holds its active registrations' buy-ins while it registers or "
    "runs and nothing once finished or cancelled, and every registration's buy-in and refund "
    "entry moves exactly its buy-in and fee, and a finished one's one prize entry pays "
    "exactly its places' prizes",
    _pools_and_registrations,
)
