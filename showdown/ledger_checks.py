"""The banked game's checks for `manage.py verify_ledger`.

The cashier sees the banked game only as legs on wallets, `banked_bets_in_play`,
`house_bankroll` and `charity`; what each round staked and won is stored here. `ShowdownConfig
.ready()` registers these checks with the cashier, which never imports this app.

- `banked_entries_match_rounds`: every banked entry belongs to one round and its legs are what
  the round says: the wagers placed at the deal and the Bet at the decision from the player's
  wallet into bets in play; the settlement takes the round's stake out of bets in play, pays
  the wallet its stakes back plus winnings and books the rest to or from the house; a void
  moves the stake to charity. And every round has exactly the entries its status needs.
- `banked_bets_in_play_match_open_rounds`: bets in play hold exactly the stakes of the rounds
  still waiting for a decision (in total, and each shard those of its players); house money
  moves only in banked settlements.

The house's `banked_bets_in_play` and `house_bankroll` are split into shards (a player's rounds
use the shard `house_shard(player id)`), so an entry's house legs are compared summed per kind,
the one house figure, and their shards must be those of the entry's players. A live round's
seats share one settlement entry, which names no player: it must post every seat's legs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from django.db.models import Q, Sum, Value
from django.db.models.functions import Coalesce

from cashier.models import HOUSE_SHARDS, Account, Entry, Posting, house_shard
from cashier.verify import LedgerCheck
from showdown.models import ShowdownRound

Kind = Account.Kind
Reason = Entry.Reason
Status = ShowdownRound.Status
BATCH = 500

# (account kind, owner id, amount): one leg as the round implies it
Leg = tuple[str, int | None, int]

ENTRY_FIELDS = ("wager_entry_id", "bet_entry_id", "result_entry_id")
ROUND_FIELDS = (
    "id",
    "player_id",
    "live_round_id",
    "status",
    "ante",
    "hole_card_bonus",
    "final_hand_bonus",
    "bet",
    "staked",
    "net",
    "result",
    *ENTRY_FIELDS,
)


def _legs(*legs: Leg) -> Counter[Leg]:
    return Counter(leg for leg in legs if leg[2] != 0)


def _expected(round_: dict) -> dict[str, tuple[str, Counter[Leg]] | None]:
    """What each of the round's entry fields must hold: (reason, legs), or None (no entry)."""
    player, staked = round_["player_id"], round_["staked"]
    placed = round_["ante"] + round_["hole_card_bonus"] + round_["final_hand_bonus"]
    expected: dict[str, tuple[str, Counter[Leg]] | None] = {
        "wager_entry_id": (
            Reason.BANKED_BET,
            _legs((Kind.WALLET, player, -placed), (Kind.BANKED_BETS_IN_PLAY, None, placed)),
        ),
        "bet_entry_id": None,
        "result_entry_id": None,
    }
    if round_["bet"]:
        expected["bet_entry_id"] = (
            Reason.BANKED_BET,
            _legs(
                (Kind.WALLET, player, -round_["bet"]),
                (Kind.BANKED_BETS_IN_PLAY, None, round_["bet"]),
            ),
        )
    if round_["status"] == Status.SETTLED:
        net = round_["net"] if round_["net"] is not None else 0
        expected["result_entry_id"] = (
            Reason.BANKED_PAYOUT,
            _legs(
                (Kind.BANKED_BETS_IN_PLAY, None, -staked),
                (Kind.WALLET, player, staked + net),
                (Kind.HOUSE_BANKROLL, None, -net),
            ),
        )
    elif round_["status"] == Status.VOIDED:
        expected["result_entry_id"] = (
            Reason.VOID,
            _legs((Kind.BANKED_BETS_IN_PLAY, None, -staked), (Kind.CHARITY, None, staked)),
        )
    return expected


def _describe(legs: Counter[Leg]) -> str:
    parts = []
    for (kind, owner, amount), times in sorted(legs.items(), key=str):
        who = f"player #{owner}'s wallet" if kind == Kind.WALLET else kind
        parts.extend([f"{amount:+d} on {who}"] * times)
    return ", ".join(parts) or "no legs"


HOUSE_KINDS = (Kind.BANKED_BETS_IN_PLAY, Kind.HOUSE_BANKROLL)


def _merged(legs: Counter[Leg]) -> Counter[Leg]:
    """Legs with the house's sharded accounts summed per kind: what staff and auditors see,
    and how an entry of several players (a live round's settlement) books the house."""
    merged: Counter[Leg] = Counter()
    house: dict[str, int] = {}
    for (kind, owner, amount), times in legs.items():
        if kind in HOUSE_KINDS:
            house[kind] = house.get(kind, 0) + amount * times
        else:
            merged[(kind, owner, amount)] += times
    merged.update(_legs(*((kind, None, total) for kind, total in house.items())))
    return merged


def _claimants(rounds: list[dict]) -> dict[int, list[dict]]:
    """Result entry id -> every round naming it (a live round's seats share one)."""
    ids = [r["result_entry_id"] for r in rounds if r["result_entry_id"]]
    claimants: dict[int, list[dict]] = {}
    for round_ in ShowdownRound.objects.filter(result_entry_id__in=ids).values(*ROUND_FIELDS):
        claimants.setdefault(round_["result_entry_id"], []).append(round_)
    return claimants


def _check_batch(rounds: list[dict]) -> Iterator[str]:
    claimants = _claimants(rounds)
    entry_ids = {r[field] for r in rounds for field in ENTRY_FIELDS if r[field]}
    reasons = dict(Entry.objects.filter(pk__in=entry_ids).values_list("pk", "reason"))
    players = dict(Entry.objects.filter(pk__in=entry_ids).values_list("pk", "player_id"))
    posted: dict[int, Counter[Leg]] = {pk: Counter() for pk in entry_ids}
    shards: dict[int, set[int]] = {pk: set() for pk in entry_ids}
    for entry_id, kind, owner, shard, amount in Posting.objects.filter(
        entry_id__in=entry_ids
    ).values_list("entry_id", "account__kind", "account__owner_id", "account__shard", "amount"):
        posted[entry_id][(kind, owner, amount)] += 1
        if kind in HOUSE_KINDS:
            shards[entry_id].add(shard)
    for round_ in rounds:
        label = (
            f"showdown round #{round_['id']} ({round_['status']}, player #{round_['player_id']})"
        )
        if round_["status"] == Status.SETTLED and (round_["net"] is None or not round_["result"]):
            yield f"{label} is settled but stores no result"
            continue
        wagers = round_["ante"] + round_["hole_card_bonus"] + round_["final_hand_bonus"]
        if round_["staked"] != wagers + round_["bet"]:
            yield (
                f"{label} stakes {round_['staked']}, not the sum of its wagers "
                f"({wagers + round_['bet']})"
            )
        if round_["result"] and round_["result"]["seats"][0]["net"] != round_["net"]:
            yield f"{label} stores net {round_['net']} but its result says otherwise"
        for field, wanted in _expected(round_).items():
            entry_id = round_[field]
            name = field.removesuffix("_id").replace("_", " ")
            if wanted is None:
                if entry_id:
                    yield f"{label} has a {name} #{entry_id} it should not have"
                continue
            if not entry_id:
                yield f"{label} has no {name}"
                continue
            sharing = claimants.get(entry_id, [round_]) if field == "result_entry_id" else [round_]
            if round_["id"] != min(r["id"] for r in sharing):
                continue  # a shared entry is checked once, with its first round
            yield from _entry_problems(
                label, name, entry_id, wanted[0], sharing, reasons, players, posted, shards
            )


def _entry_problems(label, name, entry_id, reason, sharing, reasons, players, posted, shards):
    """An entry against the rounds that name it: its reason and player, its legs (the house's
    summed per kind), and the house's shards it uses (those of its rounds' players)."""
    field = {"wager entry": "wager_entry_id", "bet entry": "bet_entry_id"}.get(
        name, "result_entry_id"
    )
    live = any(r["live_round_id"] for r in sharing) and field == "result_entry_id"
    player = None if live else sharing[0]["player_id"]
    whose = "the room's (no player)" if live else "the round's player"
    if reasons.get(entry_id) != reason or players.get(entry_id) != player:
        yield (
            f"{label}: its {name} #{entry_id} is a {reasons.get(entry_id)} of player "
            f"#{players.get(entry_id)}, not a {reason} of {whose}"
        )
    legs: Counter[Leg] = Counter()
    for round_ in sharing:
        expected = _expected(round_)[field]
        legs.update(expected[1] if expected else Counter())
    if _merged(posted[entry_id]) != _merged(legs):
        yield (
            f"{label}: its {name} #{entry_id} posts {_describe(_merged(posted[entry_id]))}, "
            f"but the round{'s' if len(sharing) > 1 else ''} say {_describe(_merged(legs))}"
        )
    allowed = {house_shard(r["player_id"]) for r in sharing}
    if not shards[entry_id] <= allowed:
        yield (
            f"{label}: its {name} #{entry_id} moves the house's shard(s) "
            f"{sorted(shards[entry_id] - allowed)}, not its players' ({sorted(allowed)})"
        )


def _rounds_unlike_entries() -> Iterator[str]:
    rounds = ShowdownRound.objects.values(*ROUND_FIELDS).order_by("id")
    batch: list[dict] = []
    for round_ in rounds.iterator(chunk_size=BATCH):
        batch.append(round_)
        if len(batch) == BATCH:
            yield from _check_batch(batch)
            batch = []
    yield from _check_batch(batch)
    # Every entry that moves banked money belongs to one round.
    banked = Entry.objects.filter(
        Q(reason__in=[Reason.BANKED_BET, Reason.BANKED_PAYOUT])
        | Q(postings__account__kind__in=[Kind.BANKED_BETS_IN_PLAY, Kind.HOUSE_BANKROLL])
    ).distinct()
    claimed = Q()
    for field in ENTRY_FIELDS:
        # NULLs left out: NOT IN over a list holding NULL is never true.
        claimed |= Q(
            pk__in=ShowdownRound.objects.filter(**{f"{field}__isnull": False}).values(field)
        )
    for entry in banked.exclude(claimed).order_by("id").iterator(chunk_size=BATCH):
        yield (
            f"entry #{entry.pk} ({entry.reason}, {entry.created_at:%Y-%m-%d %H:%M:%S}) moves "
            "banked-game money but belongs to no showdown round"
        )


def _in_play_unlike_open_rounds() -> Iterator[str]:
    in_play = Account.objects.filter(kind=Kind.BANKED_BETS_IN_PLAY).aggregate(
        total=Coalesce(Sum("balance"), Value(0))
    )["total"]
    open_stakes = ShowdownRound.objects.filter(status=Status.DEALT).aggregate(
        total=Coalesce(Sum("staked"), Value(0))
    )["total"]
    if in_play != open_stakes:
        yield (
            f"banked bets in play hold {in_play} but the rounds waiting for a decision stake "
            f"{open_stakes}"
        )
    else:
        yield from _shards_unlike_open_rounds()
    wrong = Q(account__kind=Kind.HOUSE_BANKROLL) & ~Q(entry__reason=Reason.BANKED_PAYOUT)
    for posting in Posting.objects.filter(wrong).select_related("entry").order_by("id"):
        yield (
            f"posting #{posting.pk} of entry #{posting.entry_id} ({posting.entry.reason}) moves "
            "the house bankroll: only banked settlements do"
        )


def _shards_unlike_open_rounds() -> Iterator[str]:
    """Each shard of bets in play holds the open stakes of the players it serves."""
    held = dict(
        Account.objects.filter(kind=Kind.BANKED_BETS_IN_PLAY).values_list("shard", "balance")
    )
    wanted: dict[int, int] = {}
    for player_id, staked in (
        ShowdownRound.objects.filter(status=Status.DEALT)
        .values("player_id")
        .annotate(total=Sum("staked"))
        .values_list("player_id", "total")
    ):
        wanted[house_shard(player_id)] = wanted.get(house_shard(player_id), 0) + staked
    for shard in range(HOUSE_SHARDS):
        if held.get(shard, 0) != wanted.get(shard, 0):
            yield (
                f"shard {shard} of banked bets in play holds {held.get(shard, 0)} but its "
                f"players' rounds waiting for a decision stake {wanted.get(shard, 0)}"
            )


BANKED_CHECKS = [
    LedgerCheck(
        "banked_entries_match_rounds",
        "every banked-game entry belongs to one showdown round and posts what the round says "
        "(wagers from the wallet into bets in play, the settlement to the wallet and the "
        "house, a void to charity)",
        _rounds_unlike_entries,
    ),
    LedgerCheck(
        "banked_bets_in_play_match_open_rounds",
        "banked bets in play equal the stakes of the rounds waiting for a decision, and the "
        "house bankroll moves only in banked settlements",
        _in_play_unlike_open_rounds,
    ),
]
