"""Poker's check for `manage.py verify_ledger`: every settled hand's entry is the hand's result.

The cashier sees a settlement only as legs on table stacks and a rake account; what the hand
said (each seat's net and the rake) is stored here, in `Hand.result` and the engine `state`,
and who sat in each seat in its `HandPlayer` rows.
`PokerConfig.ready()` registers the check with the cashier, which never imports poker.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from django.db.models.fields.json import KeyTransform

from cashier.models import Account, Entry, Posting
from cashier.verify import LedgerCheck
from poker.models import Hand, HandPlayer

BATCH = 500

# (account kind, owner id, table id, amount): one leg as the hand's result implies it
Leg = tuple[str, int | None, int, int]


def _outcome(result: dict) -> tuple[dict[int, int], int]:
    """(seat -> net, rake) from an engine result."""
    return {int(seat["seat"]): int(seat["net"]) for seat in result["seats"]}, int(result["rake"])


def _expected_legs(hand: dict, nets: dict[int, int], rake: int) -> Counter[Leg]:
    legs: Counter[Leg] = Counter()
    for seat, net in nets.items():
        if net:
            owner = hand["players"].get(seat)
            legs[(Account.Kind.TABLE_STACK, owner, hand["table_id"], net)] += 1
    if rake:
        legs[(Account.Kind.TABLE_RAKE, None, hand["table_id"], rake)] += 1
    return legs


def _describe(legs: Counter[Leg]) -> str:
    parts = []
    for (kind, owner, _table, amount), times in sorted(legs.items(), key=str):
        who = f"player #{owner}'s stack" if kind == Account.Kind.TABLE_STACK else kind
        parts.extend([f"{amount:+d} on {who}"] * times)
    return ", ".join(parts) or "no legs"


def _hand_label(hand: dict) -> str:
    return f"hand #{hand['id']} (table {hand['table_id']}, number {hand['number']})"


def _check_batch(hands: list[dict]) -> Iterator[str]:
    by_id = {hand["id"]: hand for hand in hands}
    for hand in hands:
        hand["players"] = {}
    for hand_id, seat, player_id in HandPlayer.objects.filter(hand_id__in=list(by_id)).values_list(
        "hand_id", "seat", "player_id"
    ):
        by_id[hand_id]["players"][seat] = player_id
    entries = {
        entry.hand_id: entry for entry in Entry.objects.filter(hand_id__in=[h["id"] for h in hands])
    }
    posted: dict[int, Counter[Leg]] = {entry.pk: Counter() for entry in entries.values()}
    for entry_id, kind, owner, table, amount in Posting.objects.filter(
        entry_id__in=list(posted)
    ).values_list("entry_id", "account__kind", "account__owner_id", "account__table_id", "amount"):
        posted[entry_id][(kind, owner, table, amount)] += 1
    for hand in hands:
        result = hand["result"] or hand["state_result"]
        if not result:
            yield f"{_hand_label(hand)} is finished but stores no result"
            continue
        nets, rake = _outcome(result)
        if (
            hand["result"]
            and hand["state_result"]
            and _outcome(hand["state_result"])
            != (
                nets,
                rake,
            )
        ):
            yield (
                f"{_hand_label(hand)}: its stored result (nets {nets}, rake {rake}) differs "
                f"from its engine state's {_outcome(hand['state_result'])}"
            )
        entry = entries.get(hand["id"])
        if entry is None:
            yield f"{_hand_label(hand)} is finished but no ledger entry settles it"
            continue
        if entry.reason != Entry.Reason.HAND_SETTLEMENT or entry.table_id != hand["table_id"]:
            yield (
                f"entry #{entry.pk} carries {_hand_label(hand)} but is a {entry.reason} at "
                f"table {entry.table_id}, not that table's hand settlement"
            )
        expected = _expected_legs(hand, nets, rake)
        actual = posted[entry.pk]
        if actual != expected:
            yield (
                f"entry #{entry.pk} settling {_hand_label(hand)} posts {_describe(actual)}, "
                f"but the hand's result is {_describe(expected)}"
            )


def _settlements_unlike_hands() -> Iterator[str]:
    # A tournament table's hands settle chips, which are not money: no entry (tournaments'
    # own check holds the prize pool to its buy-ins).
    finished = (
        Hand.objects.filter(status=Hand.Status.FINISHED, table__is_tournament=False)
        .annotate(state_result=KeyTransform("result", "state"))
        .values("id", "table_id", "number", "result", "state_result")
        .order_by("id")
    )
    batch: list[dict] = []
    for hand in finished.iterator(chunk_size=BATCH):
        batch.append(hand)
        if len(batch) == BATCH:
            yield from _check_batch(batch)
            batch = []
    yield from _check_batch(batch)
    orphans = (
        Entry.objects.filter(hand_id__isnull=False)
        .exclude(hand_id__in=Hand.objects.filter(status=Hand.Status.FINISHED).values("pk"))
        .order_by("id")
    )
    for entry in orphans.iterator(chunk_size=BATCH):
        status = Hand.objects.filter(pk=entry.hand_id).values_list("status", flat=True).first()
        what = f"a {status} hand" if status else "no hand at all"
        yield (
            f"entry #{entry.pk} ({entry.reason}, table {entry.table_id}) settles hand "
            f"#{entry.hand_id}, which is {what}: only finished hands settle"
        )


SETTLEMENTS_MATCH_HANDS = LedgerCheck(
    "hand_settlements_match_hands",
    "every finished hand is settled by one entry whose legs are its result (each player's net "
    "on their stack at the hand's table, the rake on that table's rake account), and only "
    "finished hands are settled",
    _settlements_unlike_hands,
)
