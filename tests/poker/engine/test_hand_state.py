"""Events, JSON round trips and replay: any hand can be stored, continued and rebuilt."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from poker.engine import hand as hand_module
from poker.engine.hand import Hand, ReplayMismatch
from poker.engine.rake import default_rake_schedule
from tests.poker.engine.conftest import new_hand, play


def mid_hand():
    hand = new_hand((1000, 1000, 300), game="omaha8", rake=default_rake_schedule("pot-limit"))
    return play(hand, "3 raise 35", "1 call", "2 call", "1 bet 50", "2 raise 200")


def test_json_round_trip_mid_hand_and_the_copy_plays_on_identically():
    hand = mid_hand()
    text = hand.to_json()
    copy = Hand.from_json(text)
    assert copy == hand and copy.to_json() == text
    for game in (hand, copy):
        play(game, "3 all_in", "1 fold", "2 call")
    assert copy == hand and copy.is_over
    assert Hand.from_json(hand.to_json()).result == hand.result


def test_state_is_plain_json_data():
    hand = mid_hand()
    data = hand.to_dict()
    assert json.loads(json.dumps(data)) == data
    for event in hand.events:
        assert json.loads(json.dumps(event)) == event


def test_replaying_the_events_rebuilds_the_same_hand():
    hand = mid_hand()
    assert Hand.replay(hand.setup, hand.events) == hand
    play(hand, "3 all_in", "1 fold", "2 call")
    rebuilt = Hand.replay(json.loads(json.dumps(hand.setup)), json.loads(json.dumps(hand.events)))
    assert rebuilt == hand


def test_replay_detects_events_that_do_not_match_the_deck():
    hand = mid_hand()
    events = json.loads(json.dumps(hand.events))
    street = next(e for e in events if e["type"] == "street_dealt")
    street["cards"] = list(reversed(street["cards"]))
    with pytest.raises(ReplayMismatch):
        Hand.replay(hand.setup, events)


def test_every_change_is_an_event():
    hand = mid_hand()
    kinds = [event["type"] for event in hand.events]
    assert kinds[:4] == ["hand_started", "blind_posted", "blind_posted", "hole_cards_dealt"]
    assert "street_dealt" in kinds
    actions = [e for e in hand.events if e["type"] == "action"]
    assert actions[0] == {
        "type": "action",
        "seat": 3,
        "action": "raise",
        "to": 35,
        "added": 35,
        "all_in": False,
    }


def test_act_returns_the_new_events():
    hand = new_hand((1000,) * 3)
    seen = len(hand.events)
    new = hand.act(3, "call")
    assert new == hand.events[seen:] and len(new) == 1
    hand.act(1, "call")
    new = hand.act(2, "check")
    assert [e["type"] for e in new] == ["action", "street_dealt"]


def test_setup_round_trips_through_start():
    hand = mid_hand()
    assert Hand.start(**hand.setup).setup == hand.setup


def test_the_state_machine_is_pure():
    """No Django, no clock, no randomness: only the simulator may hold a seeded generator."""
    engine = Path(hand_module.__file__).parent
    for name in ("hand", "pots", "rake", "views", "phh", "dealer"):
        source = (engine / f"{name}.py").read_text()
        for forbidden in ("django", "import random", "from random", "import time", "datetime"):
            assert forbidden not in source, (name, forbidden)
    code = (
        "import sys, poker.engine.hand, poker.engine.views, poker.engine.phh;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'random')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
