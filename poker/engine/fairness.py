"""Provably fair dealing (docs/fairness.md): the seeded shuffle, the commitment and
the check anyone can run after a hand.

Pure like the rest of the engine: the server seed, the salt and the players' client seeds come
in from outside (the services draw the first two from `secrets`). Every byte is fixed here so
that a player can redo each step with `hashlib` and `hmac` alone:

- the shuffle's randomness: `mixed_key = HMAC-SHA256(key=server_seed, msg=mix_message)` where
  `mix_message` is ``b"omaha-room-shuffle-v1"`` followed, for each seat in increasing seat
  number, by ``b"\\n" + seat in decimal + b":" + client seed`` (ASCII);
- the stream: block `i` (i = 0, 1, ...) is `HMAC-SHA256(key=mixed_key, msg=i as 8 bytes
  big-endian)`, the blocks concatenated;
- `randbelow(n)`: take the next `ceil(k / 8)` bytes of the stream (k = n.bit_length()) as a
  big-endian integer, keep its low `k` bits, and draw again when the value is `n` or more
  (rejection sampling: no modulo bias); the shuffle asks for n = 52, 51, ..., 2, one byte each;
- the deck: `shuffle_deck(randbelow)`, the same Fisher-Yates the room always used;
- the commitment: `SHA-256(salt || deck)` in lower-case hex, where `deck` is the 52 cards in
  dealing order as 104 ASCII characters ("As7d...").
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from poker.engine.cards import FULL_DECK
from poker.engine.dealer import shuffle_deck

__all__ = [
    "CLIENT_SEED_MAX",
    "SCHEME",
    "Check",
    "HmacStream",
    "Verification",
    "check_client_seed",
    "commitment",
    "deck_bytes",
    "mix_message",
    "mixed_key",
    "poker_dealt",
    "seeded_deck",
    "showdown_dealt",
    "verify",
]

SCHEME = "omaha-room-shuffle-v1"
CLIENT_SEED_MAX = 64
SEED_BYTES = 32  # the server seed and the salt: 256 bits each from the CSPRNG
_HOLE_CARDS = 4
_BOARD_COUNTS = (3, 1, 1)  # flop, turn, river: each after one burn card at a poker table


def check_client_seed(seed: object) -> str:
    """A client seed as the mixing takes it: 1 to 64 printable ASCII characters without
    spaces (0x21-0x7E), so its bytes are its characters and no separator can hide inside it."""
    if not isinstance(seed, str) or not 1 <= len(seed) <= CLIENT_SEED_MAX:
        raise ValueError(f"a client seed is 1 to {CLIENT_SEED_MAX} characters")
    if any(not 0x21 <= ord(char) <= 0x7E for char in seed):
        raise ValueError("a client seed uses printable ASCII characters without spaces")
    return seed


def _seat_seeds(client_seeds: Mapping[int, str]) -> list[tuple[int, str]]:
    seeds = []
    for seat, seed in client_seeds.items():
        if type(seat) is not int or seat < 0:
            raise ValueError(f"seat {seat!r} is not a seat number")
        seeds.append((seat, check_client_seed(seed)))
    return sorted(seeds)


def mix_message(client_seeds: Mapping[int, str]) -> bytes:
    """The HMAC message: the scheme's name, then one line per seat in seat order."""
    lines = [f"\n{seat}:{seed}" for seat, seed in _seat_seeds(client_seeds)]
    return (SCHEME + "".join(lines)).encode("ascii")


def mixed_key(server_seed: bytes, client_seeds: Mapping[int, str]) -> bytes:
    """The shuffle's key: the server's seed keyed over every seated player's seed, so neither
    the room nor any player fixes it alone."""
    if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
        raise ValueError(f"the server seed is {SEED_BYTES} bytes")
    return hmac.new(server_seed, mix_message(client_seeds), hashlib.sha256).digest()


class HmacStream:
    """HMAC-SHA256 in counter mode under one key, read as uniform integers."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._counter = 0
        self._buffer = b""

    def take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            block = self._counter.to_bytes(8, "big")
            self._buffer += hmac.new(self._key, block, hashlib.sha256).digest()
            self._counter += 1
        taken, self._buffer = self._buffer[:count], self._buffer[count:]
        return taken

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n): low k bits of whole bytes, rejected when >= n."""
        if type(n) is not int or n < 1:
            raise ValueError(f"randbelow needs a positive int, not {n!r}")
        bits = n.bit_length()
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self.take((bits + 7) // 8), "big") & mask
            if value < n:
                return value


def seeded_deck(server_seed: bytes, client_seeds: Mapping[int, str]) -> list[str]:
    """The deck that follows from these seeds: Fisher-Yates over the HMAC stream."""
    return shuffle_deck(HmacStream(mixed_key(server_seed, client_seeds)).randbelow)


def deck_bytes(deck: Sequence[str]) -> bytes:
    """The canonical encoding: the 52 cards in order, 104 ASCII characters."""
    if (
        not isinstance(deck, list | tuple)
        or len(deck) != len(FULL_DECK)
        or set(deck) != set(FULL_DECK)
    ):
        raise ValueError("a deck is all 52 cards, each once")
    return "".join(deck).encode("ascii")


def commitment(deck: Sequence[str], salt: bytes) -> str:
    """SHA-256(salt || deck) in hex: binds the room to the deck, the salt hides it."""
    if not isinstance(salt, bytes) or len(salt) != SEED_BYTES:
        raise ValueError(f"the salt is {SEED_BYTES} bytes")
    return hashlib.sha256(salt + deck_bytes(deck)).hexdigest()


def poker_dealt(
    *,
    seats: Sequence[int],
    hole_cards: Sequence[Sequence[str]],
    burns: Sequence[str] = (),
    board: Sequence[str] = (),
    second_burns: Sequence[str] = (),
    second_board: Sequence[str] = (),
) -> dict[int, str]:
    """Deck position -> card for a poker hand (poker/engine/hand.py's order): four rounds of
    one card to each seat in the engine's seat order, then a burn before each street; a board
    run twice goes on with the second run, a burn before each of its streets (docs/rules.md
    "Run it twice": `second_board` is its whole board, the shared cards included)."""
    dealt: dict[int, str] = {}
    count = len(seats)
    for index, cards in enumerate(hole_cards):
        for round_number, card in enumerate(cards):
            dealt[round_number * count + index] = card
    position, board_left = _HOLE_CARDS * count, list(board)
    for street, burn in enumerate(burns):
        dealt[position] = burn
        position += 1
        for _ in range(_BOARD_COUNTS[street]):
            if board_left:
                dealt[position] = board_left.pop(0)
            position += 1
    first_street = len(_BOARD_COUNTS) - len(second_burns)
    run_two = list(second_board[sum(_BOARD_COUNTS[:first_street]) :])
    for offset, burn in enumerate(second_burns):
        dealt[position] = burn
        position += 1
        for _ in range(_BOARD_COUNTS[first_street + offset]):
            if run_two:
                dealt[position] = run_two.pop(0)
            position += 1
    return dealt


def showdown_dealt(
    *, holes: Mapping[int, Sequence[str]], board: Sequence[str] = ()
) -> dict[int, str]:
    """Deck position -> card for Omaha Showdown (poker/engine/showdown.py): four rounds of one
    card to each seat with wagers in seat order, then the five board cards, no burns."""
    order = sorted(holes)
    dealt: dict[int, str] = {}
    for index, seat in enumerate(order):
        for round_number, card in enumerate(holes[seat]):
            dealt[round_number * len(order) + index] = card
    start = _HOLE_CARDS * len(order)
    for offset, card in enumerate(board):
        dealt[start + offset] = card
    return dealt


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Verification:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(check.ok for check in self.checks)


def server_seed_hash(server_seed: bytes) -> str:
    """SHA-256 of a server seed, lower-case hex: published before the deal that uses it."""
    return hashlib.sha256(server_seed).hexdigest()


def verify(
    *,
    deck: Sequence[str],
    salt: bytes,
    commitment_hex: str,
    server_seed: bytes,
    client_seeds: Mapping[int, str],
    dealt: Mapping[int, str],
    published_seed_hash: str | None = None,
) -> Verification:
    """Every check of a revealed hand, each with a line saying what it found; with
    `published_seed_hash`, also that the server seed is the one published before the deal."""
    checks = []
    try:
        encoded = deck_bytes(deck)
    except ValueError as error:
        return Verification([Check("deck", False, str(error))])
    checks.append(Check("deck", True, "52 cards, each once"))
    if isinstance(salt, bytes) and len(salt) == SEED_BYTES:
        computed = hashlib.sha256(salt + encoded).hexdigest()
        same = hmac.compare_digest(computed, str(commitment_hex))
        checks.append(
            Check(
                "commitment",
                same,
                f"SHA-256(salt || deck) = {computed}"
                + ("" if same else f", but the commitment sent was {commitment_hex}"),
            )
        )
    else:
        checks.append(Check("commitment", False, f"the salt is not {SEED_BYTES} bytes"))
    try:
        expected = seeded_deck(server_seed, client_seeds)
    except ValueError as error:
        checks.append(Check("seeds", False, str(error)))
    else:
        first = next((k for k, card in enumerate(expected) if deck[k] != card), None)
        checks.append(
            Check(
                "seeds",
                first is None,
                "the seeds give this deck"
                if first is None
                else f"the seeds give {expected[first]} at position {first}, "
                f"the deck has {deck[first]}",
            )
        )
    if published_seed_hash:
        computed = server_seed_hash(server_seed) if isinstance(server_seed, bytes) else ""
        same = hmac.compare_digest(computed, str(published_seed_hash))
        checks.append(
            Check(
                "server_seed",
                same,
                f"SHA-256(server seed) = {computed}, the hash published before the deal"
                if same
                else f"SHA-256(server seed) = {computed}, but the hash published before the "
                f"deal was {published_seed_hash}",
            )
        )
    wrong = [
        (k, card) for k, card in sorted(dealt.items()) if not 0 <= k < len(deck) or deck[k] != card
    ]
    checks.append(
        Check(
            "dealt",
            bool(dealt) and not wrong,
            f"{len(dealt)} cards dealt, each at its place in the deck"
            if dealt and not wrong
            else "no cards dealt"
            if not dealt
            else "; ".join(
                f"position {k} dealt {card}, the deck has "
                + (deck[k] if 0 <= k < len(deck) else "no such position")
                for k, card in wrong
            ),
        )
    )
    return Verification(checks)
