"""The dealer's jobs around a hand (RULES.md 1 and 4): shuffle, button draw, button, blinds,
whether a hand can start."""

import secrets
from collections import Counter
from random import Random

import pytest

from poker.engine.cards import FULL_DECK
from poker.engine.dealer import (
    big_blind_passed,
    blind_seats,
    draw_for_button,
    enough_players,
    next_button,
    shuffle_deck,
)
from poker.engine.hand import Hand


def reference_fisher_yates(draws):
    """Fisher-Yates written out by hand, for the same draws."""
    deck = list(FULL_DECK)
    for i, j in zip(range(51, 0, -1), draws, strict=True):
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_shuffle_is_fisher_yates_over_the_draws_it_is_given():
    """RULES.md 1: a Fisher-Yates shuffle driven by the CSPRNG the table passes in."""
    rng = Random(1)
    draws = [rng.randrange(i + 1) for i in range(51, 0, -1)]
    asked = []
    scripted = iter(draws)

    def randbelow(n):
        asked.append(n)
        return next(scripted)

    assert shuffle_deck(randbelow) == reference_fisher_yates(draws)
    assert asked == list(range(52, 1, -1))  # one draw per position, from the cards left
    assert shuffle_deck(lambda n: n - 1) == list(FULL_DECK)  # every card stays: no bias built in


def test_shuffle_with_the_os_csprng_gives_a_full_deck_in_a_new_order():
    first, second = shuffle_deck(secrets.randbelow), shuffle_deck(secrets.randbelow)
    assert sorted(first) == sorted(second) == sorted(FULL_DECK)
    assert first != second  # 1 in 52! to fail


def test_shuffle_places_every_card_everywhere_evenly():
    """With a uniform source every card is equally likely in every position (chi-square)."""
    rng = Random(2026)
    shuffles = 26_000
    top = Counter(shuffle_deck(rng.randrange)[0] for _ in range(shuffles))
    expected = shuffles / 52
    chi_square = sum((top[card] - expected) ** 2 / expected for card in FULL_DECK)
    assert len(top) == 52
    assert chi_square < 90  # 51 degrees of freedom: p < 0.001 above about 87


@pytest.mark.parametrize("bad", [-1, 52, 1.0, None])
def test_shuffle_refuses_a_source_that_is_not_randbelow(bad):
    with pytest.raises(ValueError, match="randbelow"):
        shuffle_deck(lambda n: bad if n == 52 else 0)


def test_button_draw_highest_card_wins_ace_high():
    assert draw_for_button({1: "Kd", 4: "As", 6: "2c"}) == 4
    assert draw_for_button({2: "2s", 3: "3c"}) == 3


@pytest.mark.parametrize(
    ("cards", "winner"),
    [
        ({1: "Ah", 2: "As"}, 2),  # spades beat hearts
        ({1: "Kh", 2: "Kd"}, 1),  # hearts beat diamonds
        ({1: "7c", 2: "7d", 3: "7h", 4: "7s"}, 4),
        ({5: "9c", 7: "9d"}, 7),  # diamonds beat clubs
    ],
)
def test_button_draw_ties_broken_by_suit_spades_hearts_diamonds_clubs(cards, winner):
    """RULES.md 4 (003): for the draw only, spades > hearts > diamonds > clubs."""
    assert draw_for_button(cards) == winner


@pytest.mark.parametrize("cards", [{1: "As"}, {1: "As", 2: "As"}, {1: "As", 2: "1s"}])
def test_button_draw_refuses_bad_draws(cards):
    with pytest.raises(ValueError):
        draw_for_button(cards)


def test_button_moves_one_seat_clockwise_to_the_next_player_dealt_in():
    assert next_button(3, [1, 3, 4, 8]) == 4
    assert next_button(4, [1, 3, 8]) == 8  # seat 4 left: the next one dealt in
    assert next_button(8, [1, 3, 4, 8]) == 1  # wraps past seat 10
    with pytest.raises(ValueError):
        next_button(1, [])


def test_the_two_players_after_the_button_post_the_blinds():
    assert blind_seats(3, [1, 3, 4, 8]) == (4, 8)
    assert blind_seats(8, [1, 3, 4, 8]) == (1, 3)
    assert blind_seats(5, [1, 3, 8]) == (8, 1)  # a dead button on an empty seat


def test_heads_up_the_button_posts_the_small_blind():
    assert blind_seats(6, [2, 6]) == (6, 2)
    assert blind_seats(2, [2, 6]) == (2, 6)
    with pytest.raises(ValueError):
        blind_seats(4, [2, 6])
    with pytest.raises(ValueError):
        blind_seats(2, [2])


def test_the_big_blind_reaching_a_waiting_player_deals_them_in():
    # Seat 5 waits for the big blind (RULES.md 4): it comes to them after the small blind.
    assert blind_seats(1, [1, 3, 8], waiting_for_big_blind=[5]) == (3, 5)
    # Not yet reached: seat 9 keeps waiting, the blinds are the usual two.
    assert blind_seats(1, [1, 3, 5, 8], waiting_for_big_blind=[9]) == (3, 5)


def test_a_seat_the_big_blind_moves_past_or_onto_has_missed_it():
    """RULES.md 4: a player sitting out where the big blind went by posts it on return."""
    assert big_blind_passed(5, previous_big_blind=3, big_blind=6)
    assert big_blind_passed(6, previous_big_blind=3, big_blind=6)  # it landed there
    assert not big_blind_passed(3, previous_big_blind=3, big_blind=6)  # posted it last hand
    assert not big_blind_passed(7, previous_big_blind=3, big_blind=6)  # not reached yet
    # Wrapping past seat 10.
    assert big_blind_passed(9, previous_big_blind=8, big_blind=2)
    assert big_blind_passed(1, previous_big_blind=8, big_blind=2)
    assert not big_blind_passed(5, previous_big_blind=8, big_blind=2)


def test_heads_up_with_a_waiting_player_after_the_big_blind_three_are_dealt_in():
    # Button 2, seat 6 next; seat 8 waits between seat 6 and the button: the blinds go round
    # as at a three-handed table, 6 small and 8 big, and the button posts nothing.
    assert blind_seats(2, [2, 6], waiting_for_big_blind=[8]) == (6, 8)
    # Seat 4 waits between the button and seat 6: not reached, heads-up as usual.
    assert blind_seats(2, [2, 6], waiting_for_big_blind=[4]) == (2, 6)


@pytest.mark.parametrize("dealt_in", [[2, 6], [1, 2, 5], [1, 3, 4, 7, 9, 10]])
def test_the_dealer_s_choices_start_a_hand(dealt_in):
    """Button, blinds and deck from this module are what `Hand.start` takes."""
    button = draw_for_button({seat: FULL_DECK[4 * seat] for seat in dealt_in})
    small, big = blind_seats(button, dealt_in)
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={seat: 1000 for seat in dealt_in},
        button=button,
        small_blind_seat=small,
        big_blind_seat=big,
        deck=shuffle_deck(secrets.randbelow),
        small_blind=5,
        big_blind=10,
    )
    assert hand.to_act is not None
    moved = next_button(button, dealt_in)
    heads_up = len(dealt_in) == 2
    assert blind_seats(moved, dealt_in)[0] == (moved if heads_up else next_button(moved, dealt_in))


def test_a_hand_needs_two_ready_players_by_default():
    assert not enough_players(1)
    assert enough_players(2)
    assert not enough_players(2, min_players=3)


def test_three_to_start_and_two_may_go_on_after_a_hand_of_three():
    """RULES.md 4 (002): three to start; two may go on if the last hand had three or more."""
    assert not enough_players(2, three_to_start=True)
    assert enough_players(3, three_to_start=True)
    assert enough_players(2, three_to_start=True, last_hand_players=3)
    assert not enough_players(2, three_to_start=True, last_hand_players=2)
    assert not enough_players(1, three_to_start=True, last_hand_players=6)
