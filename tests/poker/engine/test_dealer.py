"""The dealer's jobs around a hand (RULES.md 1 and 4): shuffle, button draw, button, blinds,
whether a hand can start."""

import secrets
from collections import Counter
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poker.engine.cards import FULL_DECK
from poker.engine.dealer import (
    DealSeat,
    big_blind_passed,
    blind_seats,
    draw_button,
    draw_for_button,
    enough_players,
    next_button,
    plan_deal,
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


# ------------------------------------------------------------------ the plan of the next hand


def unshuffled(n):
    """A scripted randbelow that swaps nothing: the deck stays in FULL_DECK order (2c 2d 2h 2s
    3c ...), so a button draw gives the seats those cards in seat order."""
    return n - 1


def no_randomness(n):
    raise AssertionError("only a fresh table draws for the button")


def playing(*numbers, stack=1000, **flags):
    return [DealSeat(number=n, stack=stack, **flags) for n in numbers]


def test_plan_draw_button_deals_one_card_each_in_seat_order():
    button, cards = draw_button([6, 2], unshuffled)
    assert cards == {2: "2c", 6: "2d"}
    assert button == 6  # same rank: diamonds beat clubs (RULES.md 4, 003)


def test_plan_a_fresh_table_draws_for_the_button_and_deals_everyone_ready():
    plan = plan_deal(playing(2, 6, 9), button=None, big_blind=None, randbelow=unshuffled)
    assert plan.button_draw == {2: "2c", 6: "2d", 9: "2h"}
    assert plan.button == 9  # 2h is the highest card drawn
    assert (plan.small_blind, plan.big_blind) == (2, 6)
    assert plan.dealt == (2, 6, 9)
    assert plan.extra_big_blinds == () and plan.missed_big_blind == ()


def test_plan_the_button_moves_one_seat_clockwise_to_the_next_player_dealt_in():
    plan = plan_deal(playing(1, 3, 4, 8), button=3, big_blind=8, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (4, 8, 1)
    assert plan.button_draw is None
    # Seat 4 now sits out: the button skips it.
    seats = [*playing(1, 3, 8), DealSeat(number=4, stack=1000, sitting_out=True)]
    plan = plan_deal(seats, button=3, big_blind=8, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (8, 1, 3)
    assert plan.dealt == (1, 3, 8)


def test_plan_heads_up_the_button_posts_the_small_blind():
    plan = plan_deal(playing(2, 6), button=2, big_blind=6, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (6, 6, 2)


def test_plan_leaves_out_who_sits_out_leaves_times_out_or_has_no_chips():
    seats = [
        *playing(1, 2),
        DealSeat(number=3, stack=1000, sitting_out=True),
        DealSeat(number=4, stack=1000, leaving=True),
        DealSeat(number=5, stack=0),
    ]
    plan = plan_deal(seats, button=1, big_blind=None, randbelow=no_randomness)
    assert plan.dealt == (1, 2)


def test_plan_a_waiting_player_is_dealt_in_when_the_big_blind_reaches_them():
    waiter = DealSeat(number=5, stack=1000, waiting_big_blind=True)
    # The button moves 1 -> 3; seat 5 waits, so the small blind is the next player dealt in
    # (8) and the big blind the next seat after it (1): seat 5 keeps waiting.
    plan = plan_deal([*playing(1, 3, 8), waiter], button=1, big_blind=3, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (3, 8, 1)
    assert 5 not in plan.dealt
    # A hand later the big blind reaches seat 5 after the small blind 3: it posts and plays.
    plan = plan_deal([*playing(1, 3, 8), waiter], button=8, big_blind=1, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (1, 3, 5)
    assert plan.dealt == (1, 3, 5, 8)


def test_plan_a_player_posting_now_is_dealt_in_with_an_extra_big_blind():
    seats = [*playing(1, 3, 8), DealSeat(number=5, stack=1000, posts_big_blind_next=True)]
    plan = plan_deal(seats, button=8, big_blind=3, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (1, 3, 5)
    assert plan.extra_big_blinds == ()  # the big blind reached them anyway: one big blind
    plan = plan_deal(seats, button=1, big_blind=5, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (3, 5, 8)
    assert plan.extra_big_blinds == ()  # in the small blind: posts that, no extra
    plan = plan_deal(seats, button=3, big_blind=8, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (5, 8, 1)
    assert plan.extra_big_blinds == (5,)  # on the button: a second big blind
    assert plan.dealt == (1, 3, 5, 8)


def test_plan_with_nobody_to_wait_behind_everyone_ready_is_dealt_in():
    # One playing, one waiting: waiting behind a lone player would never start a hand.
    seats = [*playing(2), DealSeat(number=7, stack=1000, waiting_big_blind=True)]
    plan = plan_deal(seats, button=2, big_blind=None, randbelow=no_randomness)
    assert plan.dealt == (2, 7)
    assert plan.extra_big_blinds == ()
    # At a fresh table too, and nobody posts extra there.
    seats = [
        *playing(2, 4, posts_big_blind_next=True),
        DealSeat(number=7, stack=9, waiting_big_blind=True),
    ]
    plan = plan_deal(seats, button=None, big_blind=None, randbelow=unshuffled)
    assert plan.dealt == (2, 4, 7) and plan.extra_big_blinds == ()


def test_plan_sitting_out_where_the_big_blind_went_by_is_a_missed_big_blind():
    seats = [
        *playing(1, 3, 8),
        *[DealSeat(number=n, stack=1000, sitting_out=True) for n in (2, 5, 9)],
    ]
    plan = plan_deal(seats, button=1, big_blind=3, randbelow=no_randomness)
    assert (plan.button, plan.small_blind, plan.big_blind) == (3, 8, 1)
    assert plan.missed_big_blind == (5, 9)  # passed going 3 -> 8 -> 1; seat 2 not reached
    # No big blind yet (the table's first hand): nobody missed one.
    plan = plan_deal(seats, button=1, big_blind=None, randbelow=no_randomness)
    assert plan.missed_big_blind == ()


def test_plan_needs_enough_ready_players():
    assert plan_deal(playing(4), button=None, big_blind=None, randbelow=unshuffled) is None
    assert (
        plan_deal(playing(1, 2), button=1, big_blind=2, randbelow=no_randomness, min_players=3)
        is None
    )
    kwargs = {"button": 1, "big_blind": 2, "randbelow": no_randomness, "three_to_start": True}
    assert plan_deal(playing(1, 2), **kwargs) is None
    assert plan_deal(playing(1, 2), last_hand_players=3, **kwargs).dealt == (1, 2)
    assert plan_deal(playing(1, 2, 3), **kwargs).dealt == (1, 2, 3)


_seats = st.dictionaries(
    st.integers(1, 10),
    st.tuples(
        st.sampled_from(["playing", "waiting", "out"]),
        st.booleans(),  # posts a big blind now
        st.booleans(),  # leaving
        st.sampled_from([0, 500]),
    ),
    max_size=10,
).map(
    lambda table: [
        DealSeat(
            number=n,
            stack=stack,
            sitting_out=kind == "out",
            waiting_big_blind=kind == "waiting",
            posts_big_blind_next=posts and kind == "playing",
            leaving=leaving,
        )
        for n, (kind, posts, leaving, stack) in table.items()
    ]
)


@given(
    seats=_seats,
    button=st.none() | st.integers(1, 10),
    big_blind=st.none() | st.integers(1, 10),
    seed=st.integers(0, 2**32),
)
def test_plan_property_who_is_dealt_in_and_who_posts(seats, button, big_blind, seed):
    """Over any table: only ready players are dealt in, at least two; the button and both
    blinds are dealt in; extra big blinds are players who chose to post, not in the blinds;
    only the sitting-out miss a big blind; a waiting player is dealt in only as the big blind
    (or when there is nobody to wait behind)."""
    rng = Random(seed)
    plan = plan_deal(seats, button=button, big_blind=big_blind, randbelow=rng.randrange)
    by_number = {seat.number: seat for seat in seats}
    ready = {seat.number for seat in seats if seat.ready}
    assert (plan is None) == (len(ready) < 2)
    if plan is None:
        return
    assert len(plan.dealt) >= 2 and set(plan.dealt) <= ready
    assert list(plan.dealt) == sorted(plan.dealt)
    assert {plan.button, plan.small_blind, plan.big_blind} <= set(plan.dealt)
    assert plan.small_blind != plan.big_blind
    assert (plan.small_blind == plan.button) == (len(plan.dealt) == 2)  # heads-up (RULES.md 3)
    for n in plan.extra_big_blinds:
        assert by_number[n].posts_big_blind_next and n not in (plan.small_blind, plan.big_blind)
    assert set(plan.missed_big_blind) <= {s.number for s in seats if s.sitting_out}
    if big_blind is None:
        assert plan.missed_big_blind == ()
    active = [n for n in ready if not by_number[n].waiting_big_blind]
    if button is not None and len(active) >= 2:
        assert plan.button_draw is None
        waiting_dealt = [n for n in plan.dealt if by_number[n].waiting_big_blind]
        assert waiting_dealt in ([], [plan.big_blind])
        assert plan.button == next_button(button, active)
    if button is None:
        assert set(plan.button_draw) == set(plan.dealt)
        assert plan.button == draw_for_button(plan.button_draw)


# ------------------------------------------------------------------ blinds as the table changes

LAST_HAND = {"button": 3, "small_blind": 1, "big_blind": 2, "last_hand_players": 3}


@pytest.mark.parametrize(
    "leaves, button_and_small, big",
    [(3, 2, 1), (2, 3, 1), (1, 2, 3)],  # RULES.md 4, "Going heads-up": its three examples
)
def test_going_heads_up_nobody_posts_the_same_blind_two_hands_running(
    leaves, button_and_small, big
):
    left = [n for n in (1, 2, 3) if n != leaves]
    plan = plan_deal(playing(*left), randbelow=no_randomness, **LAST_HAND)
    assert (plan.button, plan.small_blind, plan.big_blind) == (button_and_small,) * 2 + (big,)
    # The seat may also stay, sitting out: it is not dealt in and the blinds are the same.
    seats = [*playing(*left), DealSeat(number=leaves, stack=1000, sitting_out=True)]
    plan = plan_deal(seats, randbelow=no_randomness, **LAST_HAND)
    assert (plan.button, plan.small_blind, plan.big_blind) == (button_and_small,) * 2 + (big,)


def test_going_heads_up_then_the_button_moves_as_usual():
    plan = plan_deal(playing(1, 2), randbelow=no_randomness, **LAST_HAND)
    assert (plan.button, plan.big_blind) == (2, 1)
    plan = plan_deal(
        playing(1, 2), button=2, small_blind=2, big_blind=1, last_hand_players=2,
        randbelow=no_randomness,
    )  # fmt: skip
    assert (plan.button, plan.small_blind, plan.big_blind) == (1, 1, 2)


def test_going_heads_up_from_more_players_with_neither_blind_left_moves_the_button_as_usual():
    # Last hand button 4, blinds 1 and 2 (seat 3 under the gun): 1 and 2 leave.
    plan = plan_deal(
        playing(3, 4), button=4, small_blind=1, big_blind=2, last_hand_players=4,
        randbelow=no_randomness,
    )  # fmt: skip
    assert (plan.button, plan.small_blind, plan.big_blind) == (3, 3, 4)
    # Seats 3 and 4 leave: the last small blind (1) takes the big blind, 2 the button.
    plan = plan_deal(
        playing(1, 2), button=4, small_blind=1, big_blind=2, last_hand_players=4,
        randbelow=no_randomness,
    )  # fmt: skip
    assert (plan.button, plan.small_blind, plan.big_blind) == (2, 2, 1)


def test_heads_up_to_three_handed_the_blinds_move_on():
    # Heads-up last hand: button and small blind 1, big blind 2; seat 3 is back from sitting
    # out and posts at once (or sits between them, ready): three-handed, every blind moves.
    for seats in (
        playing(1, 2, 3),
        [*playing(1, 2), DealSeat(number=3, stack=1000, posts_big_blind_next=True)],
    ):
        plan = plan_deal(
            seats, button=1, small_blind=1, big_blind=2, last_hand_players=2,
            randbelow=no_randomness,
        )  # fmt: skip
        assert (plan.button, plan.small_blind, plan.big_blind) == (2, 3, 1)
        assert plan.dealt == (1, 2, 3)


def _posted(plan):
    return {plan.small_blind: "small", plan.big_blind: "big"}


@given(
    changes=st.lists(
        st.tuples(st.integers(1, 6), st.sampled_from(["leave", "sit out", "back", "stay"])),
        min_size=1,
        max_size=30,
    ),
    seed=st.integers(0, 2**32),
)
def test_property_going_heads_up_nobody_posts_the_same_blind_two_hands_running(changes, seed):
    """A six-seat table over many hands, a seat leaving, sitting out, or coming back (posting
    at once) before each: whenever two players are dealt in after a hand of three or more,
    neither posts the blind they posted in that hand, and the button is the small blind."""
    seats = {n: DealSeat(number=n, stack=1000) for n in range(1, 7)}
    last = None
    rng = Random(seed)
    for seat, change in changes:
        if change == "leave":
            seats.pop(seat, None)
        elif change == "sit out" and seat in seats:
            seats[seat] = DealSeat(number=seat, stack=1000, sitting_out=True)
        elif change == "back":
            seats[seat] = DealSeat(number=seat, stack=1000, posts_big_blind_next=last is not None)
        kwargs = {"button": None, "big_blind": None, "small_blind": None, "last_hand_players": 0}
        if last is not None:
            kwargs = {
                "button": last.button, "big_blind": last.big_blind,
                "small_blind": last.small_blind, "last_hand_players": len(last.dealt),
            }  # fmt: skip
        plan = plan_deal(list(seats.values()), randbelow=rng.randrange, **kwargs)
        if plan is None:
            continue
        if last is not None and len(plan.dealt) == 2 and len(last.dealt) >= 3:
            before, now = _posted(last), _posted(plan)
            assert all(before.get(n) != blind for n, blind in now.items()), (last, plan)
        assert plan.button == plan.small_blind or len(plan.dealt) > 2
        last = plan
        seats = {
            n: DealSeat(number=n, stack=1000, sitting_out=s.sitting_out) for n, s in seats.items()
        }
