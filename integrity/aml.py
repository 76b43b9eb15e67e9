"""The money-flow (AML) checks: flags per player read from the ledger, never from a hand.

Every figure is worked out from the player's wallet postings (cashier `Entry`/`Posting`), so
each flag names the ledger entries behind it:
- large deposits and withdrawals: each at or above `INTEGRITY_AML_LARGE_CENTS` (a withdrawal
  waiting for identity checks counts: it was asked for);
- structuring: at least `INTEGRITY_AML_STRUCTURING_COUNT` deposits just under that threshold
  (within `INTEGRITY_AML_NEAR_PERCENT` of it) inside `INTEGRITY_AML_STRUCTURING_HOURS`, whose
  sum passes the threshold: what one large deposit would have shown, split;
- little play: a withdrawal after deposits (those of `INTEGRITY_AML_TURNAROUND_HOURS` before
  it, since the previous withdrawal) of at least `INTEGRITY_AML_MIN_CENTS`, with buy-ins,
  top-ups, tournament buy-ins and banked bets between them under `INTEGRITY_AML_PLAY_RATIO`
  of those deposits: money passed through the room rather than played;
- chip flow to a flagged player: a pair's chip-flow signal (integrity/selectors.py) past
  chance whose taker has an AML flag of this run or an open integrity case.

These are rules, not chance: each flag scores 1 or more, more the further past its threshold.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from cashier.models import Account, Entry, Posting
from integrity.models import Case, Queue, Signal
from integrity.selectors import Found, Subject

Kind = Signal.Kind
Reason = Entry.Reason
MAX_ENTRY_IDS = 100  # ledger entries kept per signal
DEPOSITS = {Reason.DEPOSIT}
WITHDRAWALS = {Reason.WITHDRAWAL, Reason.WITHDRAWAL_HELD}
PLAY = {Reason.BUY_IN, Reason.TOP_UP, Reason.TOURNAMENT_BUY_IN, Reason.BANKED_BET}


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


@dataclass
class Movement:
    """One wallet movement of a player: the entry, why, when and the cents (always > 0)."""

    entry_id: int
    reason: str
    at: datetime
    cents: int


def wallet_movements(
    *, since: datetime, until: datetime, player_id: int | None = None
) -> dict[int, list[Movement]]:
    """Each player's deposits, withdrawals and play out of the wallet in [since, until), oldest
    first, from the wallet's postings (a withdrawal is what left the wallet)."""
    postings = Posting.objects.filter(
        account__kind=Account.Kind.WALLET,
        entry__reason__in=[*DEPOSITS, *WITHDRAWALS, *PLAY],
        entry__created_at__gte=since,
        entry__created_at__lt=until,
    )
    if player_id is not None:
        postings = postings.filter(account__owner_id=player_id)
    out: dict[int, list[Movement]] = defaultdict(list)
    for owner, entry_id, reason, at, amount in postings.order_by(
        "entry__created_at", "entry_id"
    ).values_list("account__owner_id", "entry_id", "entry__reason", "entry__created_at", "amount"):
        out[owner].append(Movement(entry_id, reason, at, abs(amount)))
    return out


def _large(moves: list[Movement], reasons: set, kind: str, large: int) -> list[Found]:
    big = [m for m in moves if m.reason in reasons and m.cents >= large]
    if not big:
        return []
    total = sum(m.cents for m in big)
    detail = {"count": len(big), "cents": total, "largest": max(m.cents for m in big),
              "threshold": large}  # fmt: skip
    score = round(min(5.0, total / large), 4)
    ids = [m.entry_id for m in big][:MAX_ENTRY_IDS]
    return [Found(kind, total, score, detail, [], entry_ids=ids)]


def _structuring(moves: list[Movement], large: int) -> list[Found]:
    """The busiest window of deposits just under the threshold, if it has enough of them and
    their sum passes the threshold."""
    near = large * (100 - _setting("INTEGRITY_AML_NEAR_PERCENT", 10)) / 100
    window = timedelta(hours=_setting("INTEGRITY_AML_STRUCTURING_HOURS", 24))
    least = _setting("INTEGRITY_AML_STRUCTURING_COUNT", 3)
    under = [m for m in moves if m.reason in DEPOSITS and near <= m.cents < large]
    best: list[Movement] = []
    start = 0
    for end, move in enumerate(under):
        while move.at - under[start].at > window:
            start += 1
        if end + 1 - start > len(best):
            best = under[start : end + 1]
    total = sum(m.cents for m in best)
    if len(best) < least or total <= large:
        return []
    detail = {"count": len(best), "cents": total, "hours": window.total_seconds() / 3600,
              "from_cents": round(near), "threshold": large}  # fmt: skip
    score = round(min(5.0, total / large), 4)
    ids = [m.entry_id for m in best][:MAX_ENTRY_IDS]
    return [Found(Kind.STRUCTURING, len(best), score, detail, [], entry_ids=ids)]


def _little_play(moves: list[Movement], before: list[Movement]) -> list[Found]:
    """The withdrawal with the least play between it and the deposits behind it."""
    lookback = timedelta(hours=_setting("INTEGRITY_AML_TURNAROUND_HOURS", 72))
    least = _setting("INTEGRITY_AML_MIN_CENTS", 10_000)
    ratio = _setting("INTEGRITY_AML_PLAY_RATIO", 0.5)
    history = before + moves
    worst: Found | None = None
    for i in range(len(before), len(history)):
        out = history[i]
        if out.reason not in WITHDRAWALS or out.cents < least:
            continue
        deposits: list[Movement] = []
        for earlier in reversed(history[:i]):
            if earlier.reason in WITHDRAWALS or out.at - earlier.at > lookback:
                break
            if earlier.reason in DEPOSITS:
                deposits.append(earlier)
        deposited = sum(m.cents for m in deposits)
        if deposited < least:
            continue
        first = min(m.at for m in deposits)
        plays = [m for m in history[:i] if m.reason in PLAY and m.at >= first]
        played = sum(m.cents for m in plays)
        share = played / deposited
        if share >= ratio:
            continue
        detail = {"deposited": deposited, "played": played, "withdrawn": out.cents,
                  "hours": round((out.at - first).total_seconds() / 3600, 2),
                  "ratio_below": ratio}  # fmt: skip
        ids = sorted(m.entry_id for m in [*deposits, *plays, out])[:MAX_ENTRY_IDS]
        score = round(1 + 2 * (1 - share / ratio), 4)
        flag = Found(Kind.LITTLE_PLAY, round(share, 4), score, detail, [], entry_ids=ids)
        if worst is None or flag.score > worst.score:
            worst = flag
    return [worst] if worst is not None else []


def aml_flags(
    *, since: datetime, until: datetime, player_id: int | None = None
) -> dict[int, list[Found]]:
    """Each player's AML flags of the period (only `player_id`'s when given): large deposits
    and withdrawals, structuring and little play."""
    large = _setting("INTEGRITY_AML_LARGE_CENTS", 1_000_000)
    lookback = timedelta(hours=_setting("INTEGRITY_AML_TURNAROUND_HOURS", 72))
    moves = wallet_movements(since=since, until=until, player_id=player_id)
    # Deposits and play just before the period stand behind its first withdrawals.
    before = wallet_movements(since=since - lookback, until=since, player_id=player_id)
    flags: dict[int, list[Found]] = {}
    for pid, mine in moves.items():
        found = [
            *_large(mine, DEPOSITS, Kind.LARGE_DEPOSIT, large),
            *_large(mine, WITHDRAWALS, Kind.LARGE_WITHDRAWAL, large),
            *_structuring(mine, large),
            *_little_play(mine, before.get(pid, [])),
        ]
        if found:
            flags[pid] = found
    return flags


def players_with_open_cases() -> set[int]:
    """Players in an open integrity case, of any queue (either side of a pair)."""
    open_cases = Case.objects.filter(closed_at__isnull=True).values_list("player_id", "partner_id")
    return {pid for pair in open_cases for pid in pair if pid is not None}


def flagged_flows(
    chip_flows: list[Found], flagged: set[int], cases: set[int]
) -> dict[int, list[Found]]:
    """For each pair's chip-flow signal past chance whose taker is flagged or in an open case:
    a flag on the giver, with the pair's hands and the hands' settlement entries."""
    out: dict[int, list[Found]] = defaultdict(list)
    for found in chip_flows:
        giver, taker = found.detail["from"], found.detail["to"]
        if found.score <= 0 or (taker not in flagged and taker not in cases):
            continue
        detail = {**found.detail, "taker_has": "aml_flag" if taker in flagged else "open_case"}
        ids = list(
            Entry.objects.filter(hand_id__in=found.hand_ids)
            .order_by("id")
            .values_list("id", flat=True)[:MAX_ENTRY_IDS]
        )
        score = round(1 + found.score, 4)
        out[giver].append(
            Found(Kind.FLAGGED_FLOW, found.figure, score, detail, found.hand_ids, entry_ids=ids)
        )
    return out


def aml_subjects(
    *, since: datetime, until: datetime, player_id: int | None, found: list[Subject]
) -> list[Subject]:
    """The AML queue of a run: each player's flags of the period, and the chip flows of the
    run's collusion subjects (`found`) to a flagged player or one in an open case."""
    flags = aml_flags(since=since, until=until, player_id=player_id)
    chip_flows = [
        signal
        for subject in found
        if subject.queue == Queue.COLLUSION
        for signal in subject.signals
        if signal.kind == Kind.CHIP_FLOW
    ]
    flagged = set(flags)
    if player_id is not None and chip_flows:  # the partners' own flags, too
        flagged |= set(aml_flags(since=since, until=until))
    for giver, more in flagged_flows(chip_flows, flagged, players_with_open_cases()).items():
        if player_id is None or giver == player_id:
            flags.setdefault(giver, []).extend(more)
    return [Subject(Queue.AML, pid, None, flags[pid]) for pid in sorted(flags)]
