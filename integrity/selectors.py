"""The integrity checks: figures per pair of players and per player, read from finished hands.

Only hands with status `finished` are read (never a running deal, never a cancelled one, never
the deck: `Hand.objects` leaves it out and these queries name their columns), so every card
in them, hole cards included, is over and may be weighed. Each figure is compared with what
chance would give (the players' own behaviour against everybody else, or the room's seating)
and scored as how far past chance it is, so a queue ranks the least likely first:

Collusion and chip dumping, per pair that sat in hands together (or shared a login address):
- seating: hands together against the hands chance would put them together
  (hands of one times hands of the other over the hands of the period);
- following: how often one started at a table the other had just started at;
- soft play: folds to the partner's bets, raises against the partner and bets when only the
  two were left, each against the player's own rates against others; strong hands (a straight
  or better shown at the showdown) played without a bet against the partner;
- chip flow: the net amount one lost to the other in pots both put chips in, against the
  spread such transfers have by chance; weak losses: losing with a weak holding (one pair or
  worse on the board, or a weak start) to the partner more often than to others;
- shared address and device: the same login address (and the same browser) in the audit
  log's `security.login` records.

Bots and assistance, per player: the spread of decision times (a program's barely varies), the
longest stretch of play without a break, the most tables at once, and how many decisions took
the very same time across tables.

Decision times are the gap between an action's hand event and the event before it in the
hand (`HandEvent.created_at`, written by the action's own statement); a gap of exactly zero is
an action the room took in the same change (a timeout's fold, a leave), not a decision.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import mean, pstdev
from typing import Any

from django.conf import settings
from django.db.models import Count

from audit.models import AuditRecord
from integrity.models import Queue, Signal
from poker.engine.evaluate import HIGH_CATEGORIES, omaha_high
from poker.models import Hand, HandEvent, HandPlayer

Kind = Signal.Kind
CHUNK = 500  # hands read per round trip
MAX_HAND_IDS = 100  # hands kept per signal: enough to review, bounded rows
STRAIGHT = HIGH_CATEGORIES.index("straight")
ONE_PAIR = HIGH_CATEGORIES.index("one pair")
AGGRESSIVE = {"bet", "raise"}


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


# -- reading finished hands


@dataclass
class HandSeen:
    """One finished hand as the checks read it (every card is over)."""

    id: int
    table_id: int
    started_at: datetime
    ended_at: datetime
    players: dict[int, int]  # seat -> player id
    nets: dict[int, int]  # player id -> net (rake taken)
    events: list[tuple[dict, datetime]]


def finished_hands(
    *, since: datetime, until: datetime, player_id: int | None = None
) -> Iterator[HandSeen]:
    """The finished hands that ended in [since, until), oldest first (only `player_id`'s when
    given), read in chunks: never a running or cancelled hand, never the deck."""
    hands = Hand.objects.filter(
        status=Hand.Status.FINISHED, ended_at__gte=since, ended_at__lt=until
    ).order_by("ended_at", "id")
    if player_id is not None:
        hands = hands.filter(hand_players__player_id=player_id)
    rows = list(hands.values_list("id", "table_id", "started_at", "ended_at"))
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        ids = [row[0] for row in chunk]
        players: dict[int, dict[int, int]] = defaultdict(dict)
        nets: dict[int, dict[int, int]] = defaultdict(dict)
        for hand_id, seat, pid, net in HandPlayer.objects.filter(hand_id__in=ids).values_list(
            "hand_id", "seat", "player_id", "net"
        ):
            players[hand_id][seat] = pid
            nets[hand_id][pid] = net or 0
        events: dict[int, list[tuple[dict, datetime]]] = defaultdict(list)
        for hand_id, payload, created in (
            HandEvent.objects.filter(hand_id__in=ids, hand__status=Hand.Status.FINISHED)
            .order_by("hand_id", "seq")
            .values_list("hand_id", "payload", "created_at")
        ):
            events[hand_id].append((payload, created))
        for hand_id, table_id, started, ended in chunk:
            yield HandSeen(
                hand_id, table_id, started, ended, players[hand_id], nets[hand_id], events[hand_id]
            )


def _category(hole: list[str], board: list[str]) -> int:
    return HIGH_CATEGORIES.index(omaha_high(hole, board).category)


def weak_holding(hole: list[str], board: list[str]) -> bool:
    """One pair or worse on a board of three or more; before the flop, four cards with no pair
    and no ace (a start few players put money in with)."""
    if len(hole) != 4:
        return False
    if len(board) >= 3:
        return _category(hole, board) <= ONE_PAIR
    ranks = [card[0] for card in hole]
    return "A" not in ranks and len(set(ranks)) == 4


# -- the tallies


@dataclass
class PlayerTally:
    hands: int = 0
    decisions: list[tuple[float, int, int]] = field(default_factory=list)  # (s, hand, table)
    actions: int = 0
    aggressive: int = 0
    faced: int = 0  # decisions facing someone's bet or raise
    folded: int = 0
    raised: int = 0
    lost: int = 0  # hands lost to someone who won
    weak_lost: int = 0
    plays: list[tuple[int, datetime, datetime, int]] = field(default_factory=list)


@dataclass
class PairTally:
    """What `x` did against `y` (one direction of a pair)."""

    together: int = 0
    together_hands: list[int] = field(default_factory=list)
    faced: int = 0
    folded: int = 0
    raised: int = 0
    fold_hands: list[int] = field(default_factory=list)
    alone_actions: int = 0  # actions when only the two were left, after the flop
    alone_aggressive: int = 0
    alone_hands: list[int] = field(default_factory=list)
    strong_unbet: list[int] = field(default_factory=list)
    transfers: list[tuple[float, int]] = field(default_factory=list)  # x lost to y, per hand
    lost_to: int = 0
    weak_lost_to: int = 0
    weak_hands: list[int] = field(default_factory=list)


class Tally:
    """Everything the checks count, fed one finished hand at a time."""

    def __init__(self) -> None:
        self.hands = 0
        # The period's hands and each player's, when only some hands were read (one player's).
        self.period_hands: int | None = None
        self.period_counts: dict[int, int] = {}
        self.tables: set[int] = set()
        self.players: dict[int, PlayerTally] = defaultdict(PlayerTally)
        self.pairs: dict[tuple[int, int], PairTally] = defaultdict(PairTally)

    def add(self, hand: HandSeen) -> None:
        self.hands += 1
        self.tables.add(hand.table_id)
        ids = sorted(set(hand.players.values()))
        for pid in ids:
            tally = self.players[pid]
            tally.hands += 1
            tally.plays.append((hand.table_id, hand.started_at, hand.ended_at, hand.id))
        for x in ids:
            for y in ids:
                if x != y:
                    pair = self.pairs[(x, y)]
                    pair.together += 1
                    if len(pair.together_hands) < MAX_HAND_IDS:
                        pair.together_hands.append(hand.id)
        self._play(hand)

    def _play(self, hand: HandSeen) -> None:
        walk = _Walk(self, hand)
        for payload, created in hand.events:
            walk.event(payload, created)
        self._strong_unbet(hand, walk)
        self._losses(hand, walk)

    def _strong_unbet(self, hand: HandSeen, walk: _Walk) -> None:
        """A strong hand shown at the showdown, never bet after the flop, against a partner
        still in: the hands staff look at for soft play."""
        left = [seat for seat in hand.players if seat not in walk.folded]
        if len(walk.board) < 5 or len(left) < 2:
            return
        for seat, cards in walk.shown.items():
            if seat in walk.postflop_aggressive or _category(cards, walk.board) < STRAIGHT:
                continue
            for other in left:
                if other != seat:
                    pair = self.pairs[(hand.players[seat], hand.players[other])]
                    _keep(pair.strong_unbet, hand.id)

    def _losses(self, hand: HandSeen, walk: _Walk) -> None:
        """Who lost to whom in pots both put chips in: each loser's loss shared among the
        winners by their gains."""
        seat_of = {pid: seat for seat, pid in hand.players.items()}
        winners = {
            pid: net for pid, net in hand.nets.items() if net > 0 and seat_of[pid] in walk.put_in
        }
        won = sum(winners.values())
        if not won:
            return
        for loser, net in hand.nets.items():
            seat = seat_of[loser]
            if net >= 0 or seat not in walk.put_in:
                continue
            weak = weak_holding(walk.holes.get(seat, []), walk.board)
            me = self.players[loser]
            me.lost += 1
            me.weak_lost += weak
            for winner, gain in winners.items():
                pair = self.pairs[(loser, winner)]
                pair.transfers.append((-net * gain / won, hand.id))
                pair.lost_to += 1
                if weak:
                    pair.weak_lost_to += 1
                    _keep(pair.weak_hands, hand.id)


def _keep(hands: list[int], hand_id: int) -> None:
    """Note a hand behind a figure, once, up to MAX_HAND_IDS."""
    if hands[-1:] != [hand_id] and len(hands) < MAX_HAND_IDS:
        hands.append(hand_id)


class _Walk:
    """One finished hand's events, in order: the board, who folded, who put chips in, who bet
    last on the street, and each action counted for its player and the pair it faced."""

    def __init__(self, tally: Tally, hand: HandSeen) -> None:
        self.tally, self.hand = tally, hand
        self.holes: dict[int, list[str]] = {}
        self.board: list[str] = []
        self.folded: set[int] = set()
        self.put_in: set[int] = set()
        self.aggressor: int | None = None  # who bet or raised last on this street
        self.postflop_aggressive: set[int] = set()
        self.shown: dict[int, list[str]] = {}
        self.previous: datetime | None = None

    def event(self, payload: dict, created: datetime) -> None:
        kind = payload.get("type")
        if kind == "hole_cards_dealt":
            self.holes = {seat: cards for seat, cards in payload["hole_cards"] if cards}
        elif kind == "street_dealt":
            self.board = self.board + list(payload["cards"])
            self.aggressor = None
        elif kind == "blind_posted":
            self.put_in.add(payload["seat"])
        elif kind == "cards_shown" and not payload.get("voluntary"):
            self.shown[payload["seat"]] = payload["cards"]
        elif kind == "action" and payload["seat"] in self.hand.players:
            self.action(payload, created)
        if kind != "hand_started":
            self.previous = created

    def action(self, payload: dict, created: datetime) -> None:
        hand, players = self.hand, self.hand.players
        seat, action = payload["seat"], payload["action"]
        pid = players[seat]
        me = self.tally.players[pid]
        gap = (created - self.previous).total_seconds() if self.previous is not None else 0.0
        if gap > 0:  # zero: the room acted in the same change (a timeout, a leave)
            me.decisions.append((gap, hand.id, hand.table_id))
        aggressive = action in AGGRESSIVE
        me.actions += 1
        me.aggressive += aggressive
        if payload.get("added"):
            self.put_in.add(seat)
        left = [s for s in players if s not in self.folded]
        if self.board and len(left) == 2 and seat in left:
            other = players[left[0] if left[1] == seat else left[1]]
            pair = self.tally.pairs[(pid, other)]
            pair.alone_actions += 1
            pair.alone_aggressive += aggressive
            _keep(pair.alone_hands, hand.id)
        if self.aggressor is not None and self.aggressor != seat:
            me.faced += 1
            me.folded += action == "fold"
            me.raised += action == "raise"
            pair = self.tally.pairs[(pid, players[self.aggressor])]
            pair.faced += 1
            pair.raised += action == "raise"
            if action == "fold":
                pair.folded += 1
                _keep(pair.fold_hands, hand.id)
        if aggressive:
            self.aggressor = seat
            if self.board:
                self.postflop_aggressive.add(seat)
        if action == "fold":
            self.folded.add(seat)


def tally_hands(hands: Iterable[HandSeen]) -> Tally:
    tally = Tally()
    for hand in hands:
        tally.add(hand)
    return tally


# -- figures and scores


@dataclass
class Found:
    """One signal before it is stored: kind, figure, score, detail, hands (and, for the AML
    queue, the ledger entries)."""

    kind: str
    figure: float
    score: float
    detail: dict
    hand_ids: list[int]
    entry_ids: list[int] = field(default_factory=list)


@dataclass
class Subject:
    queue: str
    player_id: int
    partner_id: int | None
    signals: list[Found]

    @property
    def score(self) -> float:
        return round(sum(found.score for found in self.signals), 4)


def _clamp(p: float) -> float:
    return min(max(p, 0.05), 0.95)


def _z(k: float, n: float, p: float) -> float:
    """How many standard deviations `k` of `n` lies above the `n * p` chance expects."""
    if n <= 0:
        return 0.0
    return (k - n * p) / math.sqrt(n * p * (1 - p))


def _hands(*lists: list[int]) -> list[int]:
    return sorted({hand for each in lists for hand in each})[:MAX_HAND_IDS]


def _r(value: float) -> float:
    return round(value, 4)


def sessions(plays: list[tuple[int, datetime, datetime, int]], gap: timedelta) -> list[list]:
    """A player's spells at each table: [table, start, end, hands], split by `gap`."""
    by_table: dict[int, list] = defaultdict(list)
    for table, start, end, hand in sorted(plays, key=lambda p: p[1]):
        spells = by_table[table]
        if spells and start - spells[-1][2] <= gap:
            spells[-1][2] = max(spells[-1][2], end)
            spells[-1][3].append(hand)
        else:
            spells.append([table, start, end, [hand]])
    return sorted((s for spells in by_table.values() for s in spells), key=lambda s: s[1])


def pair_signals(tally: Tally, x: int, y: int) -> list[Found]:
    """The collusion and chip-dumping signals of the pair (x, y), both directions."""
    xy, yx = tally.pairs.get((x, y), PairTally()), tally.pairs.get((y, x), PairTally())
    px, py = tally.players[x], tally.players[y]
    found: list[Found] = []
    min_hands = _setting("INTEGRITY_MIN_HANDS_TOGETHER", 10)
    period = tally.period_hands or tally.hands
    if xy.together >= min_hands and period:
        hands_x = tally.period_counts.get(x, px.hands)
        hands_y = tally.period_counts.get(y, py.hands)
        expected = hands_x * hands_y / period
        ratio = xy.together / expected if expected else 0.0
        found.append(
            Found(
                Kind.SEATING,
                _r(ratio),
                # Twice chance scores nothing; a few hands together count for little, as
                # honest players who like the same table share a few sessions.
                _r(max(0.0, math.log2(ratio) - 1) * min(1.0, xy.together / 30) if ratio else 0.0),
                {"together": xy.together, "expected": _r(expected), "hands": period},
                xy.together_hands,
            )
        )
    if xy.together >= min_hands:
        found += _soft_play(xy, yx, px, py)
        found += _chip_flow(xy, yx, px, py, x, y)
    return found


def _rate(k: int, total: int, k_pair: int, n_pair: int) -> float:
    """A player's rate of something against everyone but the partner."""
    return _clamp((k - k_pair) / (total - n_pair)) if total - n_pair > 0 else 0.5


def _softness(pair: PairTally, me: PlayerTally) -> tuple[float, dict]:
    """How soft one player is on the other: folds to the partner's bets above the player's
    fold rate against others, raises of them and bets when the two are alone below the
    player's rates, as one z (each part's z summed over the square root of three)."""
    fold = _rate(me.folded, me.faced, pair.folded, pair.faced)
    raising = _rate(me.raised, me.faced, pair.raised, pair.faced)
    betting = _clamp(me.aggressive / me.actions) if me.actions else 0.5
    z_fold = _z(pair.folded, pair.faced, fold)
    z_raise = -_z(pair.raised, pair.faced, raising)
    z_alone = -_z(pair.alone_aggressive, pair.alone_actions, betting)
    counts = {
        "faced": pair.faced,
        "folded": pair.folded,
        "folds_expected": pair.faced * fold,
        "raised": pair.raised,
        "raises_expected": pair.faced * raising,
        "alone": pair.alone_actions,
        "bets": pair.alone_aggressive,
        "bets_expected": pair.alone_actions * betting,
        "z_folds": z_fold,
        "z_raises": z_raise,
        "z_alone": z_alone,
    }
    return (z_fold + z_raise + z_alone) / math.sqrt(3), counts


def _soft_play(xy: PairTally, yx: PairTally, px: PlayerTally, py: PlayerTally) -> list[Found]:
    """Soft play both ways: each player's softness on the other, combined (Stouffer's sum
    over the square root of two), so one aggressive player folding the other out often is
    half the evidence that both going easy on each other is."""
    if not xy.faced + yx.faced + xy.alone_actions + yx.alone_actions:
        return []
    z_xy, one = _softness(xy, px)
    z_yx, other = _softness(yx, py)
    z = (z_xy + z_yx) / math.sqrt(2)
    both = {key: one[key] + other[key] for key in one}
    n, k, expect = both["faced"], both["folded"], both["folds_expected"]
    k_r, expect_r = both["raised"], both["raises_expected"]
    n_alone, k_alone, expect_a = both["alone"], both["bets"], both["bets_expected"]
    strong = _hands(xy.strong_unbet, yx.strong_unbet)
    # Strong hands not bet add to a soft play already past chance, never make one.
    score = max(0.0, z - 2.0) + min(1.0, 0.25 * len(strong)) * (z > 2.0)
    detail = {
        "faced_partner_bets": n,
        "folds_to_partner": k,
        "folds_expected": _r(expect),
        "raises_against_partner": k_r,
        "raises_expected": _r(expect_r),
        "actions_alone_with_partner": n_alone,
        "bets_alone_with_partner": k_alone,
        "bets_expected": _r(expect_a),
        "strong_hands_not_bet": len(strong),
        "z_one_way": _r(z_xy),
        "z_other_way": _r(z_yx),
    }
    hands = _hands(xy.fold_hands, yx.fold_hands, xy.alone_hands, yx.alone_hands, strong)
    return [Found(Kind.SOFT_PLAY, _r(z), _r(score), detail, hands)]


def _chip_flow(xy, yx, px, py, x: int, y: int) -> list[Found]:
    found: list[Found] = []
    flows = [(amount, hand) for amount, hand in xy.transfers] + [
        (-amount, hand) for amount, hand in yx.transfers
    ]
    if flows:
        net = sum(amount for amount, _ in flows)
        spread = math.sqrt(sum(amount * amount for amount, _ in flows))
        z = abs(net) / spread if spread else 0.0
        giver, taker = (x, y) if net > 0 else (y, x)
        hands = [hand for amount, hand in sorted(flows, key=lambda f: -abs(f[0]))]
        found.append(
            Found(
                Kind.CHIP_FLOW,
                _r(abs(net)),
                _r(max(0.0, z - 1.5)),
                {
                    "from": giver,
                    "to": taker,
                    "pots": len(flows),
                    "cents": round(abs(net)),
                    "z": _r(z),
                },
                sorted(hands[:MAX_HAND_IDS]),
            )
        )
    # Weak losses: each player's share of weak holdings among losses to the partner, against
    # that share among their losses to everybody else.
    best: tuple[float, dict, list[int]] | None = None
    for me, pair, who in ((px, xy, x), (py, yx, y)):
        others = me.lost - pair.lost_to
        if pair.lost_to < 4 or others <= 0:
            continue
        # The share elsewhere, drawn towards a half by one weak and one strong loss more,
        # so a few losses elsewhere do not make any weak loss to the partner look rare; and
        # a few losses to the partner weigh less than many.
        p = min(max((me.weak_lost - pair.weak_lost_to + 1) / (others + 2), 0.15), 0.9)
        z = _z(pair.weak_lost_to, pair.lost_to, p) * min(1.0, pair.lost_to / 10)
        if best is None or z > best[0]:
            detail = {"player": who, "losses_to_partner": pair.lost_to,
                      "weak_losses_to_partner": pair.weak_lost_to, "weak_share_elsewhere": _r(p),
                      "z": _r(z)}  # fmt: skip
            best = (z, detail, pair.weak_hands)
    if best is not None:
        z, detail, hands = best
        share = detail["weak_losses_to_partner"] / detail["losses_to_partner"]
        found.append(Found(Kind.WEAK_LOSSES, _r(share), _r(max(0.0, z - 2.0)), detail, hands))
    return found


def following_signals(tally: Tally, pairs: Iterable[tuple[int, int]]) -> dict:
    """For each pair: how often one started at a table the other started at within the window,
    against one chance in the number of tables."""
    gap = timedelta(minutes=_setting("INTEGRITY_SESSION_GAP_MINUTES", 5))
    window = timedelta(minutes=_setting("INTEGRITY_FOLLOW_MINUTES", 10))
    spells = {pid: sessions(t.plays, gap) for pid, t in tally.players.items()}
    p = _clamp(1 / max(2, len(tally.tables)))
    out: dict[tuple[int, int], Found] = {}
    for x, y in pairs:
        sx, sy = spells.get(x, []), spells.get(y, [])
        moves = min(len(sx), len(sy)) - 1
        if moves < 2:
            continue
        follows, hands = 0, []
        for table, start, _end, played in sx[1:]:
            for other_table, other_start, _e, other_played in sy:
                if other_table == table and abs(other_start - start) <= window:
                    follows += 1
                    hands += played[:3] + other_played[:3]
                    break
        z = _z(min(follows, moves), moves, p)
        out[(x, y)] = Found(
            Kind.FOLLOWING,
            _r(follows / moves),
            _r(max(0.0, z - 2.0)),
            {"moves": moves, "followed": follows, "chance": _r(p), "z": _r(z)},
            _hands(hands),
        )
    return out


def shared_logins(*, since: datetime, until: datetime, player_ids: set[int] | None) -> dict:
    """Pairs that logged in from the same address (and with the same browser), from the audit
    log's `security.login` records of the period: {(x, y): (addresses, devices)}."""
    records = AuditRecord.objects.filter(
        action="security.login", created_at__gte=since, created_at__lt=until, actor__isnull=False
    ).values_list("actor_id", "payload")
    by_address: dict[str, set[int]] = defaultdict(set)
    by_device: dict[tuple[str, str], set[int]] = defaultdict(set)
    for actor, payload in records:
        address = (payload or {}).get("ip") or ""
        if not address:
            continue
        by_address[address].add(actor)
        agent = (payload or {}).get("user_agent") or ""
        if agent:
            by_device[(address, agent)].add(actor)
    shared: dict[tuple[int, int], tuple[set, set]] = defaultdict(lambda: (set(), set()))
    for groups, index in ((by_address, 0), (by_device, 1)):
        for key, actors in groups.items():
            for x in actors:
                for y in actors:
                    if x < y and (player_ids is None or x in player_ids or y in player_ids):
                        shared[(x, y)][index].add(key if index == 0 else key[0])
    return shared


def bot_signals(tally: Tally, pid: int) -> list[Found]:
    me = tally.players[pid]
    found: list[Found] = []
    times = [gap for gap, _hand, _table in me.decisions]
    if len(times) >= _setting("INTEGRITY_MIN_DECISIONS", 20):
        average, sd = mean(times), pstdev(times)
        cv = sd / average if average else 0.0
        hands = _hands([hand for _gap, hand, _table in me.decisions])
        found.append(
            Found(
                Kind.TIMING_SPREAD,
                _r(cv),
                _r(max(0.0, (0.3 - cv) / 0.3 * 3)),
                {"decisions": len(times), "mean_seconds": _r(average), "sd_seconds": _r(sd)},
                hands,
            )
        )
        buckets = Counter(round(gap / 0.05) for gap in times)
        bucket, count = buckets.most_common(1)[0]
        tables = {table for gap, _h, table in me.decisions if round(gap / 0.05) == bucket}
        share = count / len(times)
        same = [hand for gap, hand, _t in me.decisions if round(gap / 0.05) == bucket]
        found.append(
            Found(
                Kind.IDENTICAL_TIMINGS,
                _r(share),
                _r(max(0.0, (share - 0.25) / 0.25 * 2) if len(tables) >= 2 else 0.0),
                {
                    "seconds": _r(bucket * 0.05),
                    "decisions": count,
                    "of": len(times),
                    "tables": len(tables),
                },
                _hands(same),
            )
        )
    if me.plays:
        gap = timedelta(minutes=_setting("INTEGRITY_BREAK_MINUTES", 15))
        plays = sorted(me.plays, key=lambda p: p[1])
        longest, start, end, hands, best_hands = timedelta(0), plays[0][1], plays[0][2], [], []
        for _table, s, e, hand in plays:
            if s - end > gap:
                start, hands = s, []
            end = max(end, e)
            hands.append(hand)
            if end - start > longest:
                longest, best_hands = end - start, list(hands)
        hours = longest.total_seconds() / 3600
        limit = _setting("INTEGRITY_HOURS_WITHOUT_BREAK", 10)
        found.append(
            Found(
                Kind.NO_BREAKS,
                _r(hours),
                _r(max(0.0, (hours - limit) / 4)),
                {"hours": _r(hours), "break_minutes": gap.total_seconds() / 60},
                best_hands[:: max(1, len(best_hands) // MAX_HAND_IDS)][:MAX_HAND_IDS],
            )
        )
        spells = sessions(me.plays, timedelta(minutes=_setting("INTEGRITY_SESSION_GAP_MINUTES", 5)))
        moments = sorted(
            [(s[1], 1, s) for s in spells] + [(s[2], -1, s) for s in spells],
            key=lambda m: (m[0], m[1]),
        )
        at_once, most = 0, 0
        open_spells: list[list] = []
        widest: list[list] = []
        for _when, step, spell in moments:
            at_once += step
            open_spells = (
                [*open_spells, spell] if step > 0 else [s for s in open_spells if s is not spell]
            )
            if at_once > most:
                most, widest = at_once, list(open_spells)
        found.append(
            Found(
                Kind.TABLES_AT_ONCE,
                most,
                float(max(0, most - _setting("INTEGRITY_TABLES_AT_ONCE", 2))),
                {"tables": most},
                _hands(*[s[3][:10] for s in widest]),
            )
        )
    return found


def subjects_found(
    *, since: datetime, until: datetime, player_id: int | None = None
) -> tuple[int, list[Subject]]:
    """Every subject with a signal past chance (a positive score) in the period, and the
    number of finished hands read. With `player_id`, that player's pairs and own figures."""
    tally = tally_hands(finished_hands(since=since, until=until, player_id=player_id))
    pairs = {
        (min(x, y), max(x, y)) for (x, y) in tally.pairs if player_id is None or player_id in (x, y)
    }
    if player_id is not None:  # chance is the whole period's seating, not this player's hands
        period = Hand.objects.filter(
            status=Hand.Status.FINISHED, ended_at__gte=since, ended_at__lt=until
        )
        tally.period_hands = period.count()
        tally.period_counts = dict(
            HandPlayer.objects.filter(hand__in=period, player_id__in=list(tally.players))
            .values("player_id")
            .annotate(n=Count("id"))
            .values_list("player_id", "n")
        )
    logins = shared_logins(
        since=since - timedelta(days=_setting("INTEGRITY_LOGIN_DAYS", 30)),
        until=until,
        player_ids=None if player_id is None else {player_id},
    )
    following = following_signals(tally, pairs)
    subjects: list[Subject] = []
    for x, y in sorted(pairs | set(logins)):
        signals = pair_signals(tally, x, y)
        if (x, y) in following:
            signals.append(following[(x, y)])
        if (x, y) in logins:
            addresses, devices = logins[(x, y)]
            hands = tally.pairs.get((x, y), PairTally()).together_hands
            signals.append(
                Found(
                    Kind.SHARED_ADDRESS,
                    len(addresses),
                    1.0,
                    {"addresses": sorted(addresses)},
                    hands,
                )
            )
            if devices:
                signals.append(
                    Found(
                        Kind.SHARED_DEVICE, len(devices), 1.0, {"addresses": sorted(devices)}, hands
                    )
                )
        subject = Subject(Queue.COLLUSION, x, y, signals)
        if subject.score > 0:
            subjects.append(subject)
    players = [player_id] if player_id is not None else sorted(tally.players)
    for pid in players:
        subject = Subject(Queue.BOTS, pid, None, bot_signals(tally, pid))
        if subject.score > 0:
            subjects.append(subject)
    return tally.hands, subjects
