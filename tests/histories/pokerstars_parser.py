"""A small PokerStars hand-history reader written apart from our writer, for the round-trip
tests: it reads the lines trackers read (posts, actions, uncalled bets, collections, cards)."""

import re

AMOUNT = r"\$(\d+(?:\.\d\d)?)"
MOMENT = r"\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d"
# As trackers read it: the game, the stakes, then either ET alone or a local time and its zone
# with ET in brackets (PokerStars writes both); the bracket is always Eastern time.
HEADER = re.compile(
    r"^PokerStars (?:Hand|Game) #(?P<number>\d+):\s+(?P<game>.+?) "
    r"\((?P<stakes>\$\d+(?:\.\d\d)?/\$\d+(?:\.\d\d)?) USD\) - "
    rf"(?:(?P<local>{MOMENT}) (?P<zone>[A-Z]+) \[)?(?P<eastern>{MOMENT}) ET(?(local)\])$"
)
POTS = re.compile(rf"(?:Main|Side) pot(?:-\d+)? {AMOUNT}\.")
LINES = [
    ("post", re.compile(rf"^(?P<who>.+): posts (?:small|big) blind {AMOUNT}(?: and is all-in)?$")),
    ("fold", re.compile(r"^(?P<who>.+): folds$")),
    ("check", re.compile(r"^(?P<who>.+): checks$")),
    ("call", re.compile(rf"^(?P<who>.+): calls {AMOUNT}(?: and is all-in)?$")),
    ("bet", re.compile(rf"^(?P<who>.+): bets {AMOUNT}(?: and is all-in)?$")),
    ("raise", re.compile(rf"^(?P<who>.+): raises \$[\d.]+ to {AMOUNT}(?: and is all-in)?$")),
    ("uncalled", re.compile(rf"^Uncalled bet \({AMOUNT}\) returned to (?P<who>.+)$")),
    ("collect", re.compile(rf"^(?P<who>.+) collected {AMOUNT} from (?:main |side )?pot(?:-\d+)?$")),
    ("show", re.compile(r"^(?P<who>.+): shows \[(?P<cards>[^\]]+)\]")),
    ("dealt", re.compile(r"^Dealt to (?P<who>.+) \[(?P<cards>[^\]]+)\]$")),
]


def cents(text: str) -> int:
    whole, _, part = text.partition(".")
    return int(whole) * 100 + int(part or 0)


def parse(text: str) -> dict:
    """{"id", "game", "eastern", "moves": [(kind, player, cents or cards)], "board", "total",
    "pots" (what each pot paid out), "rake", "seats"}"""
    header = HEADER.match(text.splitlines()[0].rstrip())
    assert header, text.splitlines()[0]
    moves = []
    board: list[str] = []
    seats = {}
    total = rake = None
    pots: list[int] = []
    for line in (line.rstrip() for line in text.splitlines()):
        if seat := re.match(rf"^Seat (\d+): (.+) \({AMOUNT} in chips\)$", line):
            seats[int(seat.group(1))] = (seat.group(2), cents(seat.group(3)))
            continue
        if street := re.match(r"^\*\*\* (FLOP|TURN|RIVER) \*\*\* (.*)$", line):
            board = re.findall(r"[2-9TJQKA][cdhs]", street.group(2))
            continue
        if summary := re.match(rf"^Total pot {AMOUNT}.*\| Rake {AMOUNT}$", line):
            total, rake = cents(summary.group(1)), cents(summary.group(2))
            pots = [cents(amount) for amount in POTS.findall(line)] or [total - rake]
            continue
        for kind, pattern in LINES:
            if found := pattern.match(line):
                groups = found.groupdict()
                who_at = found.re.groupindex["who"]
                amounts = [g for k, g in enumerate(found.groups(), 1) if k != who_at]
                if "cards" in groups:
                    value = groups["cards"]
                else:
                    value = cents(amounts[0]) if amounts else None
                moves.append((kind, groups["who"], value))
                break
    return {
        "id": int(header["number"]),
        "game": header["game"],
        "eastern": header["eastern"],
        "pots": pots,
        "moves": moves,
        "board": board,
        "total": total,
        "rake": rake,
        "seats": seats,
    }
