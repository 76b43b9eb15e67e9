"""A hand as PokerStars text, the format PokerTracker 4, Hold'em Manager 3 and fpdb import.

Pure Python (no Django): it reads a hand record (histories/record.py) and writes what the
record shows, so a player's file holds their own hole cards and the cards shown at showdown,
never mucked ones. It writes what real PokerStars Omaha cash-game histories write (golden
files in tests/histories/golden/): the room's time first and Eastern time in brackets,
`$0.50/$1.00` stakes, "$1" and "$0.50" amounts, "raises $2 to $3", "Uncalled bet ($x) returned
to", a single side pot as `Side pot` (numbered from two on), pots net of rake in the summary,
hand names as PokerStars words them (with its kicker words when kickers decide), the showdown
pot by pot from the last side pot, Hi/Lo halves collected line by line, and three blank lines
after every hand (docs/rules.md, "Hand record formats"). Hand numbers are
the room's hand ids plus HAND_NUMBER_BASE, so they never collide with real PokerStars hands.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

GAME_NAMES = {
    ("omaha", "pot-limit"): "Omaha Pot Limit",
    ("omaha", "limit"): "Omaha Limit",
    ("omaha8", "pot-limit"): "Omaha Hi/Lo Pot Limit",
    ("omaha8", "limit"): "Omaha Hi/Lo Limit",
}
STREETS = {"flop": "FLOP", "turn": "TURN", "river": "RIVER"}
EASTERN = ZoneInfo("America/New_York")
UTC = ZoneInfo("UTC")
# PokerStars numbers its hands in the hundreds of billions (about 2.6e11 in 2025); ours start at
# nine trillion, a range PokerStars will not reach in centuries (docs/rules.md, "Hand histories").
HAND_NUMBER_BASE = 9_000_000_000_000
ROOM_NAME = "Omaha Room"
RANK_WORDS = {
    "2": ("Deuce", "Deuces"),
    "3": ("Three", "Threes"),
    "4": ("Four", "Fours"),
    "5": ("Five", "Fives"),
    "6": ("Six", "Sixes"),
    "7": ("Seven", "Sevens"),
    "8": ("Eight", "Eights"),
    "9": ("Nine", "Nines"),
    "T": ("Ten", "Tens"),
    "J": ("Jack", "Jacks"),
    "Q": ("Queen", "Queens"),
    "K": ("King", "Kings"),
    "A": ("Ace", "Aces"),
}


def hand_number(hand_id: int) -> int:
    """The number a PokerStars file gives the room's hand `hand_id`."""
    return HAND_NUMBER_BASE + int(hand_id)


# A Sit & Go's hand is written in tournament chips: `usd` writes plain counts while set.
_CHIPS: ContextVar[bool] = ContextVar("pokerstars_chips", default=False)


def usd(cents: int) -> str:
    """$1 for 100, $0.50 for 50, $1234.05 for 123405 (no grouping, as PokerStars writes); in a
    tournament's hand, chips as a plain number (`1500`, as its files write them)."""
    if _CHIPS.get():
        return str(int(cents))
    return dollars_text(cents)


def dollars_text(cents: int) -> str:
    whole, part = divmod(abs(int(cents)), 100)
    sign = "-" if cents < 0 else ""
    return f"{sign}${whole}" if part == 0 else f"{sign}${whole}.{part:02d}"


def stakes(small: int, big: int) -> str:
    """`$0.50/$1.00` when either stake has cents, else `$1/$2` (as PokerStars writes them)."""
    if small % 100 or big % 100:
        return f"${small // 100}.{small % 100:02d}/${big // 100}.{big % 100:02d}"
    return f"{usd(small)}/{usd(big)}"


def _moment(when: datetime, zone: str) -> str:
    """`2016/07/31 8:25:01 ET`: PokerStars does not pad the hour."""
    return f"{when:%Y/%m/%d} {when.hour}:{when:%M:%S} {zone}"


def _cards(cards) -> str:
    return "[" + " ".join(cards) + "]"


# How PokerStars words each category: `{one[i]}`/`{many[i]}` are the singular/plural word of the
# rank at position i of the five cards in reading order.
HIGH_HAND_WORDING = {
    "high card": "high card {one[0]}",
    "one pair": "a pair of {many[0]}",
    "two pair": "two pair, {many[0]} and {many[2]}",
    "three of a kind": "three of a kind, {many[0]}",
    "straight": "a straight, {one[4]} to {one[0]}",
    "flush": "a flush, {one[0]} high",
    "full house": "a full house, {many[0]} full of {many[3]}",
    "four of a kind": "four of a kind, {many[0]}",
    "straight flush": "a straight flush, {one[4]} to {one[0]}",
}


def high_hand_name(value: dict[str, Any] | None) -> str:
    """A high hand as PokerStars words it, from the engine's category and its five cards in
    reading order: `a pair of Fours`, `two pair, Nines and Sixes`, `a straight, Nine to King`,
    `a flush, Queen high`, `a full house, Sevens full of Threes`, `high card Ace`."""
    if not value or not value.get("cards"):
        return (value or {}).get("name", "")
    ranks = [card[0] for card in value["cards"]]
    if value["category"] == "straight flush" and ranks[0] == "A" and ranks[4] == "T":
        return "a Royal Flush"
    one = [RANK_WORDS[rank][0] for rank in ranks]
    many = [RANK_WORDS[rank][1] for rank in ranks]
    return HIGH_HAND_WORDING[value["category"]].format(one=one, many=many)


# How many of the five cards (in reading order) a category's name covers; the rest are kickers.
# A flush, a straight and a full house are named by all their cards or their ranks' pattern,
# so PokerStars writes no kicker for them.
NAMED_CARDS = {
    "high card": 1,
    "one pair": 2,
    "two pair": 4,
    "three of a kind": 3,
    "four of a kind": 4,
}
CATEGORY_ORDER = list(HIGH_HAND_WORDING)
RANK_ORDER = "23456789TJQKA"


def _strength(value: dict[str, Any]) -> tuple[int, list[int]]:
    """A shown high hand's place: category, then its ranks in reading order (a wheel reads
    Five to Ace, so its Ace counts low)."""
    ranks = [RANK_ORDER.index(card[0]) for card in value["cards"]]
    return CATEGORY_ORDER.index(value["category"]), ranks


def kicker_words(value: dict[str, Any] | None, best: dict[str, Any] | None) -> str:
    """What PokerStars adds to a shown high hand named like the best one shown before it and
    told from it by kickers: ` - Ace+Queen kicker` (every kicker up to the one that decides)
    when it beats it, ` - lower kicker` when it does not; nothing when the names differ or the
    kickers tie."""
    if not value or not best or not value.get("cards") or not best.get("cards"):
        return ""
    named = NAMED_CARDS.get(value["category"])
    if named is None or high_hand_name(value) != high_hand_name(best):
        return ""
    ours, theirs = _strength(value)[1], _strength(best)[1]
    for k in range(named, 5):
        if ours[k] != theirs[k]:
            if ours[k] < theirs[k]:
                return " - lower kicker"
            kickers = [RANK_WORDS[card[0]][0] for card in value["cards"][named : k + 1]]
            return f" - {'+'.join(kickers)} kicker"
    return ""


def low_hand_name(value: dict[str, Any] | None) -> str:
    """`7,6,5,4,A`: the low's five ranks, highest first, the ace last."""
    return ",".join(card[0] for card in value["cards"]) if value else ""


def _hand_name(entry: dict[str, Any], hi_lo: bool, kicker: str = "") -> str:
    high = high_hand_name(entry.get("high")) + kicker
    if not hi_lo:
        return high
    low = entry.get("low")
    return f"HI: {high}" + (f"; LO: {low_hand_name(low)}" if low else "")


def roman(number: int) -> str:
    """A tournament level as PokerStars writes it: `Level III`."""
    out = ""
    for value, letters in ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"),
                           (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):  # fmt: skip
        while number >= value:
            out, number = out + letters, number - value
    return out


def _tournament_header(record: dict[str, Any], room: str) -> list[str]:
    """`PokerStars Hand #N: Tournament #T, $10+$1 USD Omaha Pot Limit - Level III (25/50) -
    <time>` and `Table 'T 1' 6-max Seat #n is the button`, as its tournament files write
    them (the blinds in chips; fixed limit its small and big bets)."""
    table, sng = record["table"], record["tournament"]
    started = datetime.fromisoformat(record["started_at"])
    if record["structure"] == "limit":
        blinds = f"{table['small_bet']}/{table['big_bet']}"
    else:
        blinds = f"{table['small_blind']}/{table['big_blind']}"
    game = GAME_NAMES[(record["game"], record["structure"])]
    buy_in = f"{dollars_text(sng['buy_in'])}+{dollars_text(sng['fee'])} USD"
    local = _moment(started.astimezone(UTC), "UTC")
    eastern = _moment(started.astimezone(EASTERN), "ET")
    return [
        f"PokerStars Hand #{hand_number(record['id'])}: Tournament #{sng['id']}, {buy_in} "
        f"{game} - Level {roman(sng['level'])} ({blinds}) - {local} [{eastern}]",
        f"Table '{sng['id']} 1' {table['max_seats']}-max Seat #{record['button']} is the button",
    ]


def _header(record: dict[str, Any], room: str) -> list[str]:
    if record.get("tournament"):
        return _tournament_header(record, room)
    table = record["table"]
    started = datetime.fromisoformat(record["started_at"])
    if record["structure"] == "limit":
        blinds = stakes(table["small_bet"], table["big_bet"])
    else:
        blinds = stakes(table["small_blind"], table["big_blind"])
    game = GAME_NAMES[(record["game"], record["structure"])]
    local = _moment(started.astimezone(UTC), "UTC")
    eastern = _moment(started.astimezone(EASTERN), "ET")
    return [
        f"PokerStars Hand #{hand_number(record['id'])}:  {game} ({blinds} USD) - "
        f"{local} [{eastern}]",
        f"Table '{room} - {table['name']}' {table['max_seats']}-max "
        f"Seat #{record['button']} is the button",
    ]


def daily_file_name(record: dict[str, Any], *, room: str = ROOM_NAME) -> str:
    """The file of the table's hands of the hand's (UTC) day, named as PokerStars names its
    own (`HH20260126 Omaha Room - Aurora - $0.50-$1.00 - USD Omaha Pot Limit.txt`), so a
    tracker watching a folder reads each table's day as one file."""
    table = record["table"]
    started = datetime.fromisoformat(record["started_at"]).astimezone(UTC)
    sng = record.get("tournament")
    if sng:  # as PokerStars names a tournament's file: HH20131004 T797469411 ... $3.19 + $0.31
        game = GAME_NAMES[(record["game"], record["structure"])].replace("/", "-")
        price = f"{dollars_text(sng['buy_in'])} + {dollars_text(sng['fee'])}"
        return f"HH{started:%Y%m%d} T{sng['id']} {game} {price}.txt"
    if record["structure"] == "limit":
        blinds = stakes(table["small_bet"], table["big_bet"])
    else:
        blinds = stakes(table["small_blind"], table["big_blind"])
    name = re.sub(r'[\\/:*?"<>|]', "_", f"{room} - {table['name']}")
    game = GAME_NAMES[(record["game"], record["structure"])].replace("/", "-")
    return f"HH{started:%Y%m%d} {name} - {blinds.replace('/', '-')} - USD {game}.txt"


def _pot_name(number: int, pots: int) -> str:
    """`pot` alone, `main pot`, `side pot` when there is one, `side pot-1`... when several."""
    if pots == 1:
        return "pot"
    if number == 0:
        return "main pot"
    return "side pot" if pots == 2 else f"side pot-{number}"


def pokerstars_text(record: dict[str, Any], *, room: str = ROOM_NAME) -> str:
    """The hand of `record` as one PokerStars hand history (ends with a blank line); a Sit &
    Go's hand in its tournament form, every amount in chips."""
    token = _CHIPS.set(bool(record.get("tournament")))
    try:
        return _text(record, room)
    finally:
        _CHIPS.reset(token)


def _text(record: dict[str, Any], room: str) -> str:
    play = _Play(record)
    lines = _header(record, room)
    for seat in record["seats"]:
        lines.append(
            f"Seat {seat['seat']}: {play.names[seat['seat']]} "
            f"({usd(seat['starting_stack'])} in chips)"
        )
    steps = record["steps"]
    for k, step in enumerate(steps):
        bets_before = dict(steps[k - 1]["bets"]) if k else {}
        lines.extend(play.lines_of(step["event"], bets_before))
    lines.extend(play.showdown_lines())
    if record["status"] == "cancelled":
        lines.append("Hand cancelled")
        lines.append("*** SUMMARY ***")
        for seat in record["seats"]:
            number = seat["seat"]
            button = " (button)" if number == record["button"] else ""
            lines.append(f"Seat {number}: {play.names[number]}{button} collected ({usd(0)})")
    else:
        if not play.went_to_showdown:
            for seat in play.collected:
                lines.append(f"{play.names[seat]}: doesn't show hand")
        lines.extend(finish_lines(record, play.names))
        lines.extend(
            _summary(
                record,
                play.names,
                play.positions,
                play.folded_on,
                play.put_in,
                play.shown,
                play.mucked,
                play.collected,
                play.hi_lo,
                play.collected_runs if play.twice and play.awarded else None,
            )
        )
    return "\n".join(lines) + "\n" + HAND_SEPARATOR


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd: a place as PokerStars writes it."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def finish_lines(record: dict[str, Any], names: dict[int, str]) -> list[str]:
    """The lines PokerStars writes after a tournament hand's pots when players finished in it
    (tests/histories/golden/README.md): each player out, best place first, `finished the
    tournament in 2nd place and received $6.50.` (a place paid: the prize in dollars and
    cents, `$40.00`) or `finished the tournament in 3rd place` (unpaid: no full stop); then
    the winner, `wins the tournament and receives $13.00 - congratulations!`."""
    lines = []
    for finish in (record.get("tournament") or {}).get("finishes", []):
        who, prize = names[finish["seat"]], _prize(finish["prize"])
        if finish["place"] == 1:
            lines.append(f"{who} wins the tournament and receives {prize} - congratulations!")
        elif finish["prize"]:
            place = ordinal(finish["place"])
            lines.append(f"{who} finished the tournament in {place} place and received {prize}.")
        else:
            lines.append(f"{who} finished the tournament in {ordinal(finish['place'])} place")
    return lines


def _prize(cents: int) -> str:
    """A prize as PokerStars writes it: always with its cents (`$40.00`, `$2.80`)."""
    whole, part = divmod(int(cents), 100)
    return f"${whole}.{part:02d}"


# PokerStars ends every hand with three blank lines, so a file of many hands has three
# between each two (tests/histories/golden/plo8-two-hands-kicker.txt).
HAND_SEPARATOR = "\n\n\n"


class _Play:
    """The hand's events in PokerStars lines, one event at a time, keeping what the summary
    needs: who posted which blind, who folded on which street, who put chips in, what was
    shown or mucked, and what each player collected. A showdown is kept until its pots are
    all in, then written as PokerStars writes it (`showdown_lines`)."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self.names: dict[int, str] = {seat["seat"]: seat["player"] for seat in record["seats"]}
        self.hi_lo = record["game"] == "omaha8"
        self.positions: dict[int, list[str]] = {record["button"]: ["button"]}
        self.folded_on: dict[int, str] = {}
        self.put_in: set[int] = set()
        self.street = "preflop"
        self.board: list[str] = []
        self.shared: list[str] | None = None  # the board both runs share, when run twice
        self.second: list[str] | None = None  # the second run's board so far
        self.shown: dict[int, dict[str, Any]] = {
            e["seat"]: e for e in record["showdown"] if e.get("shown")
        }
        self.mucked: set[int] = set()
        self.collected: dict[int, int] = {}
        # A board run twice (docs/rules.md "Run it twice"): what each run paid each seat.
        self.twice = bool(record.get("boards"))
        self.collected_runs: list[dict[int, int]] = [{}, {}]
        self.went_to_showdown = False
        self.big_blind_posted = False
        self.revealed: list[tuple[int, str]] = []  # (seat, "shows" or "mucks"), room's order
        self.awarded: list[dict[str, Any]] = []  # the showdown's pots, main pot first
        self.shown_after: list[str] = []  # cards shown after a showdown was over

    def lines_of(self, event: dict[str, Any], bets_before: dict[int, int]) -> list[str]:
        kind = event["type"]
        who = self.names.get(event.get("seat"), "")
        all_in = " and is all-in" if event.get("all_in") else ""
        if kind == "ante_posted":
            return [f"{who}: posts the ante {usd(event['amount'])}{all_in}"]
        if kind == "blind_posted":
            return [self._blind(event, who, all_in)]
        if kind == "hole_cards_dealt":
            dealt = [
                f"Dealt to {self.names[number]} {_cards(cards)}"
                for number, cards in event["hole_cards"]
                if cards
            ]
            return ["*** HOLE CARDS ***", *dealt]
        if kind == "action":
            top = max(bets_before.values(), default=0)
            return [self._action(event, who, all_in, top)]
        if kind == "uncalled_bet_returned":
            return [f"Uncalled bet ({usd(event['amount'])}) returned to {who}"]
        if kind == "street_dealt":
            return [self._street(event)]
        if kind == "showdown":
            self.went_to_showdown = True
            return [] if self.twice else ["*** SHOW DOWN ***"]  # twice: one a run, at the end
        if kind == "cards_shown":
            return self._shown(event, who)
        if kind == "cards_mucked":
            self.mucked.add(event["seat"])
            self.revealed.append((event["seat"], "mucks"))
            return []
        if kind == "pot_awarded":
            if self.went_to_showdown:
                self.awarded.append(event)
                return []
            return self._pot(event)
        return []

    def _shown(self, event: dict[str, Any], who: str) -> list[str]:
        """Cards shown at the showdown wait for their pot (`showdown_lines`); cards shown once
        the hand was over are written where they were shown, or after the showdown."""
        entry = self.shown.setdefault(
            event["seat"], {"cards": event["cards"], "high": {"name": event.get("high") or ""}}
        )
        if event.get("voluntary") or not self.went_to_showdown:
            known = high_hand_name(entry.get("high"))  # a hand shown unplayed has no name
            named = f" ({_hand_name(entry, self.hi_lo)})" if known else ""
            line = f"{who}: shows {_cards(event['cards'])}{named}"
            if self.went_to_showdown:
                self.shown_after.append(line)
                return []
            return [line]
        self.revealed.append((event["seat"], "shows"))
        return []

    def showdown_lines(self) -> list[str]:
        """The showdown as PokerStars writes it: pot by pot from the last side pot to the main
        pot, the players of each contested pot who have not yet shown or mucked doing so (in
        the room's showdown order), then who collected it; `No low hand qualified` after the
        main pot of a Hi/Lo hand whose low nobody won (a side pot's players all play for the
        main pot, so then no pot had a low). A board run twice has a showdown a run, `***
        FIRST SHOW DOWN ***` then `*** SECOND SHOW DOWN ***`, each with the hands' names on
        its board and its half of every pot (tests/histories/golden/plo-run-it-twice.txt)."""
        if not self.twice:
            return self._showdown(None) + self.shown_after
        if not self.awarded:
            return self.shown_after
        lines: list[str] = []
        for run, which in enumerate(("FIRST", "SECOND")):
            lines.append(f"*** {which} SHOW DOWN ***")
            lines += self._showdown(run)
        return lines + self.shown_after

    def _showdown(self, run: int | None) -> list[str]:
        lines: list[str] = []
        written: set[int] = set()
        best: dict[str, Any] | None = None
        for whole in reversed(self.awarded):
            event = whole if run is None else _run_half(whole, run)
            shares = [*event["high"], *event["low"]]
            eligible = set(event.get("eligible") or [share["seat"] for share in shares])
            if event["pot"] == 0:  # every player at the showdown plays for the main pot
                eligible |= {seat for seat, _ in self.revealed}
            elif len(eligible) < 2 and run is None:
                eligible = set()  # a side pot its one player wins unseen: paid, no showing
            # (Run twice, everyone still in shows: the lone player of a side pot shows before
            # it is paid, as in PokerStars' file.)
            for seat, kind in self.revealed:
                if seat in written or seat not in eligible:
                    continue
                written.add(seat)
                who = self.names[seat]
                if kind == "mucks":
                    lines.append(f"{who}: mucks hand")
                    continue
                entry = _run_entry(self.shown[seat], run)
                kicker = kicker_words(entry.get("high"), best)
                name = _hand_name(entry, self.hi_lo, kicker)
                lines.append(f"{who}: shows {_cards(entry['cards'])} ({name})")
                high = entry.get("high")
                stronger = best is None or (high and _strength(high) > _strength(best))
                if high and high.get("cards") and stronger:
                    best = high
            lines.extend(self._pot(event, run))
            if self.hi_lo and event["pot"] == 0 and not event["low"]:
                lines.append("No low hand qualified")
        return lines

    def _blind(self, event: dict[str, Any], who: str, all_in: str) -> str:
        self.put_in.add(event["seat"])
        blind = "small blind" if event["blind"] == "small" else "big blind"
        if blind == "small blind" or not self.big_blind_posted:
            self.positions.setdefault(event["seat"], []).append(blind)  # not an extra big blind
        self.big_blind_posted = self.big_blind_posted or blind == "big blind"
        return f"{who}: posts {blind} {usd(event['amount'])}{all_in}"

    def _action(self, event: dict[str, Any], who: str, all_in: str, top: int) -> str:
        action = event["action"]
        if action not in ("fold", "check"):
            self.put_in.add(event["seat"])
        if action == "fold":
            self.folded_on[event["seat"]] = self.street
            return f"{who}: folds"
        if action == "check":
            return f"{who}: checks"
        if action == "call":
            return f"{who}: calls {usd(event['added'])}{all_in}"
        if action == "bet":
            return f"{who}: bets {usd(event['to'])}{all_in}"
        return f"{who}: raises {usd(event['to'] - top)} to {usd(event['to'])}{all_in}"

    def _street(self, event: dict[str, Any]) -> str:
        """A street, or, on a board run twice, a street of one run as PokerStars writes it:
        `*** FIRST FLOP ***` ... then `*** SECOND FLOP ***` on the shared cards."""
        run = event.get("run")
        if run == 1 and self.shared is None:
            self.shared = list(self.board)
        if run == 2 and self.second is None:
            self.second = list(self.shared or [])
        self.street = event["street"]
        which = {1: "FIRST ", 2: "SECOND "}.get(run or 0, "")
        title = f"*** {which}{STREETS[self.street]} ***"
        cards = _cards(event["cards"])
        before = self.second if run == 2 and self.second is not None else self.board
        line = f"{title} {_cards(before)} {cards}" if before else f"{title} {cards}"
        if run == 2 and self.second is not None:
            self.second = self.second + list(event["cards"])
        else:
            self.board = self.board + list(event["cards"])
        return line

    def _pot(self, event: dict[str, Any], run: int | None = None) -> list[str]:
        where = _pot_name(event["pot"], len(self.record["pots"]))
        lines = []
        for share in [*event["high"], *event["low"]]:
            self.collected[share["seat"]] = self.collected.get(share["seat"], 0) + share["amount"]
            if run is not None:
                paid = self.collected_runs[run]
                paid[share["seat"]] = paid.get(share["seat"], 0) + share["amount"]
            lines.append(
                f"{self.names[share['seat']]} collected {usd(share['amount'])} from {where}"
            )
        return lines


def _run_half(event: dict[str, Any], run: int) -> dict[str, Any]:
    """One run's half of a pot awarded on a board run twice: its `runs` entry, or, for a pot
    one player won unseen (not run: docs/rules.md), half of it each run as PokerStars writes
    it (`collected $10 from side pot` in each showdown), the odd chip in the first."""
    if event.get("runs"):
        half = event["runs"][run]
        return {**event, "amount": half["amount"], "high": half["high"], "low": half["low"]}

    def halved(shares: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**share, "amount": share["amount"] - share["amount"] // 2 if run == 0
             else share["amount"] // 2}
            for share in shares
        ]  # fmt: skip

    return {**event, "high": halved(event["high"]), "low": halved(event["low"])}


def _run_entry(entry: dict[str, Any], run: int | None) -> dict[str, Any]:
    """A shown hand as read on the board of `run` (None: the one board)."""
    if run is None or not entry.get("runs"):
        return entry
    return {**entry, **entry["runs"][run]}


def _run_results(entry: dict[str, Any], runs: list[dict[int, int]], seat: int, hi_lo: bool) -> str:
    """`and won ($1513.50) with a pair of Queens, and lost with two pair, Kings and Nines`:
    what a shown hand did on each board of a board run twice."""
    parts = []
    for run, paid in enumerate(runs):
        name = _hand_name(_run_entry(entry, run), hi_lo)
        won = paid.get(seat, 0)
        parts.append(f"and won ({usd(won)}) with {name}" if won else f"and lost with {name}")
    return ", ".join(parts)


def _summary(
    record, names, positions, folded_on, put_in, shown, mucked, collected, hi_lo, runs=None
) -> list[str]:
    """`Total pot` counts the rake; the main and side pots beside it are what was paid out of
    each (Main + Side + Rake = Total), as PokerStars writes them."""
    pots = record["pots"]
    total = sum(pot["amount"] for pot in pots)
    line = f"Total pot {usd(total)}"
    if len(pots) > 1:
        paid = [pot["amount"] - pot.get("rake", 0) for pot in pots]
        line += f" Main pot {usd(paid[0])}."
        for k, amount in enumerate(paid[1:], 1):
            line += f" {_pot_name(k, len(pots)).capitalize()} {usd(amount)}."
    lines = ["*** SUMMARY ***", f"{line} | Rake {usd(record['rake'])}"]
    if record.get("boards"):
        first, second = record["boards"]
        lines += ["Hand was run twice", f"FIRST Board {_cards(first)}"]
        lines.append(f"SECOND Board {_cards(second)}")
    elif record["board"]:
        lines.append(f"Board {_cards(record['board'])}")
    where = {
        "preflop": "before Flop",
        "flop": "on the Flop",
        "turn": "on the Turn",
        "river": "on the River",
    }
    for seat in record["seats"]:
        number = seat["seat"]
        label = f"Seat {number}: {names[number]}" + "".join(
            f" ({p})" for p in positions.get(number, [])
        )
        won = collected.get(number, 0)
        if number in folded_on:
            didnt_bet = " (didn't bet)" if number not in put_in else ""
            lines.append(f"{label} folded {where[folded_on[number]]}{didnt_bet}")
        elif number in shown and runs is not None:
            cards = _cards(shown[number]["cards"])
            lines.append(
                f"{label} showed {cards} {_run_results(shown[number], runs, number, hi_lo)}"
            )
        elif number in shown:
            result = f"and won ({usd(won)})" if won else "and lost"
            cards, name = _cards(shown[number]["cards"]), _hand_name(shown[number], hi_lo)
            lines.append(f"{label} showed {cards} {result} with {name}")
        elif number in mucked and won:
            lines.append(f"{label} collected ({usd(won)})")  # a pot nobody else played for
        elif number in mucked:
            lines.append(f"{label} mucked")
        elif won:
            lines.append(f"{label} collected ({usd(won)})")
        else:
            lines.append(f"{label} folded before Flop")
    return lines
