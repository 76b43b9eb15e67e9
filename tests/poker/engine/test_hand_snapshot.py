"""A hand stored without its deck: the snapshot, the setup without the deck, and rebuilding a
hand from (setup, deck, events), so a store can keep the deck in one place of its own."""

import contextlib
import json
from random import Random

import pytest

from poker.engine.hand import GAMES, STRUCTURES, Hand, IllegalAction, InvalidSetup, ReplayMismatch
from poker.engine.simulate import choose_action, random_table
from tests.poker.engine.conftest import new_hand, play


def _mid_hand() -> Hand:
    hand = new_hand((1000, 1000, 300), game="omaha8")
    return play(hand, "3 raise 35", "1 call", "2 call", "1 bet 50")


def _undealt(hand: Hand) -> list[str]:
    return hand.deck[hand.next_card :]


def test_the_snapshot_and_the_setup_hold_no_deck_and_no_card_still_to_come():
    hand = _mid_hand()
    snapshot, setup = hand.snapshot(), hand.setup_without_deck
    assert "deck" not in snapshot["setup"] and "deck" not in setup
    assert snapshot == {**hand.to_dict(), "setup": setup}
    text = json.dumps([snapshot, setup])
    for card in _undealt(hand):
        assert f'"{card}"' not in text, f"{card}, still to come, is in the snapshot"


def test_a_snapshot_with_its_deck_plays_on_exactly_like_the_hand():
    hand = _mid_hand()
    copy = Hand.from_snapshot(json.loads(json.dumps(hand.snapshot())), list(hand.deck))
    assert copy == hand
    for game in (hand, copy):
        play(game, "2 call", "3 call")
    assert copy == hand and copy.snapshot() == hand.snapshot()


def test_a_copy_plays_on_apart_from_the_hand_it_copied():
    """`copy`: acting on the copy, to the end of the hand and cards shown, leaves the original
    as it was, and the original plays on to the same end."""
    hand = _mid_hand()
    before = hand.to_dict()
    copy = hand.copy()
    assert copy == hand
    rng = Random(7)
    while not copy.is_over:
        copy.act(*choose_action(rng, copy))
    for seat in copy.seats:
        with contextlib.suppress(IllegalAction):  # only the cards nobody saw are shown
            copy.show(seat)
    assert hand.to_dict() == before
    rng = Random(7)
    while not hand.is_over:
        hand.act(*choose_action(rng, hand))
    shown = [event for event in copy.events if event.get("voluntary")]
    assert hand.events == [event for event in copy.events if event not in shown]


def test_a_snapshot_without_its_deck_can_be_read_but_not_played():
    hand = _mid_hand()
    sealed = Hand.from_dict(hand.snapshot())
    assert sealed.deck is None
    assert sealed.to_act == hand.to_act
    assert sealed.legal_actions().to_dict() == hand.legal_actions().to_dict()
    assert sealed.snapshot() == hand.snapshot() and "deck" not in sealed.setup
    before = sealed.snapshot()
    with pytest.raises(IllegalAction) as refused:
        sealed.act(hand.to_act, "call")
    assert refused.value.code == "no_deck" and sealed.snapshot() == before


def test_from_snapshot_refuses_a_bad_deck():
    hand = _mid_hand()
    for deck in (None, hand.deck[:51], [*hand.deck[:51], hand.deck[0]], [*hand.deck[:51], "Zz"]):
        with pytest.raises(InvalidSetup) as refused:
            Hand.from_snapshot(hand.snapshot(), deck)
        assert refused.value.code == "bad_deck"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("structure", STRUCTURES)
def test_rebuilt_from_setup_deck_and_events_equals_the_snapshot_at_every_step(game, structure):
    rng = Random(f"{game}-{structure}")
    for _ in range(40):
        start = random_table(rng, game=game, structure=structure, seats=rng.randint(2, 6))
        hand = Hand.start(**start)
        while True:
            setup = json.loads(json.dumps(hand.setup_without_deck))
            events = json.loads(json.dumps(hand.events))
            rebuilt = Hand.rebuild(setup, start["deck"], events)
            assert rebuilt.snapshot() == hand.snapshot()
            assert rebuilt == hand
            if hand.is_over:
                break
            hand.act(*choose_action(rng, hand))


def test_rebuild_refuses_events_of_another_deck():
    hand = _mid_hand()
    other = list(reversed(hand.deck))
    with pytest.raises(ReplayMismatch):
        Hand.rebuild(hand.setup_without_deck, other, hand.events)
