"""Per-recipient views and redacted events: hidden cards stay hidden."""

import json

from poker.engine.views import (
    RUNOUT_STREET_SECONDS,
    SHOWDOWN_READ_SECONDS,
    ended_hand_display_seconds,
    events_for,
    public_view,
    redact_event,
    runout_streets,
    view_for,
)
from tests.poker.engine.conftest import new_hand, play


def hole(hand, seat):
    return hand.hole_cards[hand.seats.index(seat)]


def test_a_player_sees_their_own_cards_and_nobody_elses():
    hand = play(new_hand((1000,) * 3), "3 call", "1 call", "2 check")
    view = view_for(hand, 1)
    by_seat = {entry["seat"]: entry for entry in view["seats"]}
    assert by_seat[1]["cards"] == hole(hand, 1)
    assert by_seat[2]["cards"] is None and by_seat[3]["cards"] is None
    text = json.dumps(view)
    for card in hole(hand, 2) + hole(hand, 3) + hand.burns + hand.deck[hand.next_card :]:
        assert f'"{card}"' not in text
    assert view["board"] == hand.board


def test_spectators_see_no_hole_cards():
    hand = play(new_hand((1000,) * 3), "3 call", "1 call", "2 check")
    text = json.dumps(public_view(hand))
    for cards in hand.hole_cards:
        for card in cards:
            assert f'"{card}"' not in text


def test_legal_actions_only_for_the_player_to_act():
    hand = new_hand((1000,) * 3)
    assert view_for(hand, 3)["legal_actions"]["raise"] == {"min": 20, "max": 35}
    assert view_for(hand, 1)["legal_actions"] is None
    assert public_view(hand)["legal_actions"] is None
    assert public_view(hand)["to_act"] == 3


def test_shown_hands_are_public_mucked_hands_stay_hidden():
    hand = new_hand(
        (1000,) * 3,
        hole=["QcQd8d6c", "JcJd2h2d", "KcKd8h6s"],
        board="2c 7d 9s Jh 3c",
    )
    play(hand, "3 call", "1 call", "2 check")
    play(hand, "1 check", "2 check", "3 check", "1 check", "2 check", "3 check")
    play(hand, "1 check", "2 bet 30", "3 call", "1 call")
    spectator = public_view(hand)
    by_seat = {entry["seat"]: entry for entry in spectator["seats"]}
    assert by_seat[2]["cards"] == ["Jc", "Jd", "2h", "2d"]
    assert by_seat[1]["cards"] is None and by_seat[3]["cards"] is None  # mucked
    text = json.dumps(spectator) + json.dumps(events_for(hand, None))
    for card in ["Qc", "Qd", "8d", "6c", "Kc", "Kd", "8h", "6s"]:
        assert f'"{card}"' not in text
    assert view_for(hand, 3)["seats"][2]["cards"] == ["Kc", "Kd", "8h", "6s"]  # own, always


def test_hole_cards_event_redacted_per_recipient():
    hand = new_hand((1000,) * 3)
    dealt = next(e for e in hand.events if e["type"] == "hole_cards_dealt")
    for_seat_2 = redact_event(dealt, 2)
    assert for_seat_2["hole_cards"] == [[1, None], [2, hole(hand, 2)], [3, None]]
    assert redact_event(dealt, None)["hole_cards"] == [[1, None], [2, None], [3, None]]
    assert dealt["hole_cards"][0][1] == hole(hand, 1)  # the original is untouched


def test_burn_cards_never_leave_the_server():
    hand = play(new_hand((1000,) * 3), "3 call", "1 call", "2 check")
    street = next(e for e in hand.events if e["type"] == "street_dealt")
    for recipient in (None, 1, 2, 3):
        redacted = redact_event(street, recipient)
        assert "burn" not in redacted and redacted["cards"] == street["cards"]
    assert "burn" in street


def test_events_for_from_an_offset():
    hand = new_hand((1000,) * 3)
    seen = len(hand.events)
    hand.act(3, "call")
    assert events_for(hand, 1, start=seen) == [hand.events[-1]]


def test_an_all_in_before_the_flop_runs_three_streets_and_waits_for_them():
    """The page turns the streets over one by one; the next hand waits."""
    hand = new_hand((30, 30))  # blinds 5/10: a pot-sized raise is all-in
    play(hand, "2 all_in", "1 call")
    assert hand.is_over
    assert runout_streets(hand.events) == 3
    assert ended_hand_display_seconds(hand.events) == 3 * RUNOUT_STREET_SECONDS + (
        SHOWDOWN_READ_SECONDS
    )


def test_a_hand_checked_down_runs_nothing_out_and_a_fold_needs_no_reading_time():
    hand = new_hand((1000, 1000))
    play(hand, "2 call", "1 check", "1 check", "2 check", "1 check", "2 check", "1 check")
    play(hand, "2 check")
    assert hand.is_over and runout_streets(hand.events) == 0
    assert ended_hand_display_seconds(hand.events) == SHOWDOWN_READ_SECONDS
    folded = new_hand((1000, 1000))
    play(folded, "2 fold")
    assert ended_hand_display_seconds(folded.events) == 0
