"""Provably fair dealing (poker/engine/fairness.py): known-answer vectors, an independent
re-implementation from docs/fairness.md, client seeds changing the deck, tampering detected,
and the RNG battery on the seeded shuffle."""

import hashlib
import hmac
import secrets

import pytest

from poker.engine.cards import FULL_DECK
from poker.engine.fairness import (
    HmacStream,
    check_client_seed,
    commitment,
    mix_message,
    mixed_key,
    poker_dealt,
    seeded_deck,
    showdown_dealt,
    verify,
)
from poker.engine.hand import Hand
from poker.engine.rng_battery import MIN_RAW_DRAWS, MIN_SHUFFLES, battery_run
from poker.engine.showdown import ShowdownLimits, ShowdownRound
from poker.engine.showdown_paytables import default_paytables

SERVER_SEED = bytes(range(32))
SALT = bytes(range(32, 64))
SEEDS = {3: "bob", 1: "alice-seed"}

# Pinned when the scheme was written: a change here breaks every verification players did.
KNOWN_KEY = "57c5c6672d30bdde360f834c8a1f76a3779a02e3d44dcd79e6e9e407b676d77b"
KNOWN_DECK = (
    "TdTh7hQc5h9c6dAh8cKdKc2dKs8h9hTc2h2c7s8sKh8dJs5d9s5s5c6hJcQsJdJh6sQhAc3d3c4hTs9dAd3h7d4s7c"
    "4dAs3s6cQd2s4c"
)
KNOWN_COMMITMENT = "f1180646c8c845e97f0bea19fcff91463b945e2725a765fa653460da1b28cc7f"
KNOWN_DECK_NO_SEEDS = (
    "QhAs6cTdQdJh5s5dAd9dAcQsQc2dJc8d9h6dTh4cJdTc4h2c7sKs3d8sKdAh6s4s5c7c4d7d3hKh8c7h3c5h2hTsKcJs"
    "9c2s6h8h3s9s"
)


def reference_deck(server_seed: bytes, client_seeds: dict[int, str]) -> list[str]:
    """docs/fairness.md's recipe, written again with hashlib/hmac only."""
    message = b"omaha-room-shuffle-v1" + b"".join(
        b"\n%d:%s" % (seat, client_seeds[seat].encode()) for seat in sorted(client_seeds)
    )
    key = hmac.new(server_seed, message, hashlib.sha256).digest()
    stream = b"".join(
        hmac.new(key, i.to_bytes(8, "big"), hashlib.sha256).digest() for i in range(64)
    )
    deck, used = [r + s for r in "23456789TJQKA" for s in "cdhs"], 0
    for i in range(51, 0, -1):
        n = i + 1
        mask = (1 << n.bit_length()) - 1
        while True:
            j = stream[used] & mask
            used += 1
            if j < n:
                break
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def split(text: str) -> list[str]:
    return [text[k : k + 2] for k in range(0, len(text), 2)]


def test_known_answer_vectors():
    assert mix_message(SEEDS) == b"omaha-room-shuffle-v1\n1:alice-seed\n3:bob"
    assert mixed_key(SERVER_SEED, SEEDS).hex() == KNOWN_KEY
    deck = seeded_deck(SERVER_SEED, SEEDS)
    assert "".join(deck) == KNOWN_DECK
    assert commitment(deck, SALT) == KNOWN_COMMITMENT
    assert hashlib.sha256(SALT + KNOWN_DECK.encode()).hexdigest() == KNOWN_COMMITMENT
    assert "".join(seeded_deck(SERVER_SEED, {})) == KNOWN_DECK_NO_SEEDS


@pytest.mark.parametrize("trial", range(20))
def test_the_documented_recipe_gives_the_same_deck(trial):
    server_seed = secrets.token_bytes(32)
    seeds = {seat: secrets.token_urlsafe(8) for seat in range(1, 2 + trial % 9)}
    assert seeded_deck(server_seed, seeds) == reference_deck(server_seed, seeds)


def test_client_seeds_change_the_deck():
    base = seeded_deck(SERVER_SEED, SEEDS)
    assert seeded_deck(SERVER_SEED, {**SEEDS, 3: "bob2"}) != base
    assert seeded_deck(SERVER_SEED, {1: "alice-seed"}) != base
    assert seeded_deck(SERVER_SEED, {1: "bob", 3: "alice-seed"}) != base  # seats matter
    assert seeded_deck(bytes(32), SEEDS) != base
    assert seeded_deck(SERVER_SEED, dict(SEEDS)) == base  # and nothing else does


def test_randbelow_rejects_instead_of_reducing():
    stream = HmacStream(b"k" * 32)
    draws = [stream.randbelow(52) for _ in range(5000)]
    assert set(draws) == set(range(52))
    small = HmacStream(b"k" * 32)
    assert {small.randbelow(3) for _ in range(200)} == {0, 1, 2}
    assert HmacStream(b"k").randbelow(1) == 0
    wide = HmacStream(b"x")
    assert all(0 <= wide.randbelow(1000) < 1000 for _ in range(500))
    with pytest.raises(ValueError):
        stream.randbelow(0)


@pytest.mark.parametrize("seed", ["", "a b", "x" * 65, "caf\u00e9", "a\nb", 5, None])
def test_bad_client_seeds_are_refused(seed):
    with pytest.raises(ValueError):
        check_client_seed(seed)
    with pytest.raises(ValueError):
        seeded_deck(SERVER_SEED, {1: seed})


def test_bad_server_seed_and_salt_are_refused():
    with pytest.raises(ValueError):
        mixed_key(b"short", SEEDS)
    with pytest.raises(ValueError):
        commitment(list(FULL_DECK), b"short")
    with pytest.raises(ValueError):
        commitment(list(FULL_DECK)[:51], SALT)


def played_hand(deck):
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={2: 1000, 5: 1000, 7: 1000},
        button=2,
        small_blind_seat=5,
        big_blind_seat=7,
        deck=deck,
        small_blind=5,
        big_blind=10,
    )
    while not hand.is_over:
        hand.act(hand.to_act, "check" if hand.legal_actions().can_check else "call")
    return hand


def test_verify_a_poker_hand_and_detect_tampering():
    deck = seeded_deck(SERVER_SEED, SEEDS)
    hand = played_hand(deck)
    dealt = poker_dealt(
        seats=hand.seats, hole_cards=hand.hole_cards, burns=hand.burns, board=hand.board
    )
    assert len(dealt) == 4 * 3 + 3 + 5
    common = dict(server_seed=SERVER_SEED, client_seeds=SEEDS, dealt=dealt)
    good = verify(deck=deck, salt=SALT, commitment_hex=KNOWN_COMMITMENT, **common)
    assert good.ok, good.checks
    assert [check.name for check in good.checks] == ["deck", "commitment", "seeds", "dealt"]

    swapped = list(deck)
    swapped[0], swapped[51] = swapped[51], swapped[0]
    bad_deck = verify(deck=swapped, salt=SALT, commitment_hex=KNOWN_COMMITMENT, **common)
    assert not bad_deck.ok
    assert {c.name for c in bad_deck.checks if not c.ok} == {"commitment", "seeds", "dealt"}

    bad_salt = verify(deck=deck, salt=bytes(32), commitment_hex=KNOWN_COMMITMENT, **common)
    assert [c.name for c in bad_salt.checks if not c.ok] == ["commitment"]

    other_seeds = verify(
        deck=deck,
        salt=SALT,
        commitment_hex=KNOWN_COMMITMENT,
        server_seed=SERVER_SEED,
        client_seeds={1: "alice-seed", 3: "mallory"},
        dealt=dealt,
    )
    assert [c.name for c in other_seeds.checks if not c.ok] == ["seeds"]

    wrong_card = dict(dealt)
    wrong_card[0] = deck[1]
    misdealt = verify(
        deck=deck, salt=SALT, commitment_hex=KNOWN_COMMITMENT, **{**common, "dealt": wrong_card}
    )
    assert [c.name for c in misdealt.checks if not c.ok] == ["dealt"]

    not_a_deck = verify(deck=deck[:51], salt=SALT, commitment_hex=KNOWN_COMMITMENT, **common)
    assert not not_a_deck.ok


def test_verify_a_showdown_round():
    deck = seeded_deck(SERVER_SEED, SEEDS)
    game = ShowdownRound.open(limits=ShowdownLimits(seats=3), paytables=default_paytables())
    for seat in (1, 3):
        game.place(seat, ante=500)
    game.deal(deck)
    for seat in (1, 3):
        game.decide(seat, "call")
    dealt = showdown_dealt(
        holes={seat: player.hole for seat, player in game.seats.items()}, board=game.board
    )
    assert len(dealt) == 8 + 5
    assert dealt[0] == game.seats[1].hole[0] and dealt[1] == game.seats[3].hole[0]
    result = verify(
        deck=deck,
        salt=SALT,
        commitment_hex=KNOWN_COMMITMENT,
        server_seed=SERVER_SEED,
        client_seeds=SEEDS,
        dealt=dealt,
    )
    assert result.ok, result.checks


def test_rng_battery_passes_on_the_seeded_shuffle():
    """Quick form: fresh server seeds, two client seeds per deck; the raw stream under one key."""
    stream = HmacStream(secrets.token_bytes(32))
    report = battery_run(
        shuffle=lambda: seeded_deck(secrets.token_bytes(32), {1: "alice", 4: "bob"}),
        randbelow=stream.randbelow,
        shuffles=MIN_SHUFFLES,
        raw_draws=MIN_RAW_DRAWS,
    )
    assert report.passed, report


def test_a_board_run_twice_is_checked_card_by_card_to_its_deck_positions():
    """docs/rules.md "Run it twice": all in preflop heads-up, hole cards 0-7, the first run
    8-15, the second 16-23; every one of them checked against the committed deck."""
    deck = seeded_deck(SERVER_SEED, SEEDS)
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={1: 500, 2: 500},
        button=1,
        small_blind_seat=1,
        big_blind_seat=2,
        deck=deck,
        small_blind=5,
        big_blind=10,
        run_it_twice=True,
    )
    while not hand.deciding_runs:
        legal = hand.legal_actions()
        if legal.raise_kind:
            hand.act(hand.to_act, legal.raise_kind, legal.max_to)
        else:
            hand.act(hand.to_act, "call")
    for seat in hand.run_it_twice_seats:
        hand.answer_runs(seat, True)
    dealt = poker_dealt(
        seats=hand.seats,
        hole_cards=hand.hole_cards,
        burns=hand.burns,
        board=hand.board,
        second_burns=hand.second_burns,
        second_board=hand.second_board,
    )
    assert sorted(dealt) == list(range(24))
    assert all(deck[position] == card for position, card in dealt.items())
    common = dict(server_seed=SERVER_SEED, client_seeds=SEEDS)
    good = verify(deck=deck, salt=SALT, commitment_hex=KNOWN_COMMITMENT, dealt=dealt, **common)
    assert good.ok, good.checks
    tampered = dict(dealt)
    tampered[20] = deck[30]
    bad = verify(deck=deck, salt=SALT, commitment_hex=KNOWN_COMMITMENT, dealt=tampered, **common)
    assert [c.name for c in bad.checks if not c.ok] == ["dealt"]
