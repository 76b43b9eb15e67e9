"""The live Showdown socket's commands (showdown.commands): what each frame becomes and every
field refusal, without a socket or a database (the frame's shape: tests/config/test_frames.py;
the one socket test of its refusals: test_live_consumers.py)."""

import json

import pytest

from config.frames import Refusal
from showdown.commands import Decide, LeaveSeat, PlaceWagers, TakeSeat, parse_showdown_frame

WAGER = {"type": "wager", "ante": 500, "key": "wager-key-1"}


def parse(frame: dict):
    return parse_showdown_frame(json.dumps(frame, allow_nan=True))


@pytest.mark.parametrize(
    ("frame", "command"),
    [
        ({"type": "sit", "seat": 3}, TakeSeat(3)),
        # Seats the table lacks are the service's to refuse (`no_such_seat`): it knows the table.
        ({"type": "sit", "seat": 9}, TakeSeat(9)),
        ({"type": "leave"}, LeaveSeat()),
        (WAGER, PlaceWagers(500, 0, 0, "wager-key-1")),
        (
            {**WAGER, "hole_card_bonus": 100, "final_hand_bonus": None},
            PlaceWagers(500, 100, 0, "wager-key-1"),
        ),
        (
            {**WAGER, "hole_card_bonus": 0, "final_hand_bonus": 0},
            PlaceWagers(500, 0, 0, "wager-key-1"),
        ),
        *(
            ({"type": "decide", "decision": d, "key": "decide-key"}, Decide(d, "decide-key"))
            for d in ("fold", "call", "raise")
        ),
    ],
)
def test_each_frame_type_is_its_command(frame, command):
    assert parse(frame) == command


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"type": "sit", "seat": "one"}, "bad_field"),
        ({"type": "sit", "seat": True}, "bad_field"),
        ({"type": "sit"}, "bad_field"),
        ({**WAGER, "key": "short"}, "bad_idempotency_key"),
        ({**WAGER, "key": "k\x00" * 5}, "bad_idempotency_key"),
        ({"type": "wager", "ante": 500}, "missing_idempotency_key"),
        ({**WAGER, "ante": 5.5}, "bad_amount"),
        ({**WAGER, "ante": 0}, "bad_amount"),
        ({**WAGER, "ante": True}, "bad_amount"),
        ({**WAGER, "ante": None}, "bad_amount"),
        ({**WAGER, "hole_card_bonus": -1}, "bad_amount"),
        ({**WAGER, "final_hand_bonus": "100"}, "bad_amount"),
        ({**WAGER, "final_hand_bonus": 10**12}, "bad_amount"),
        ({"type": "decide", "decision": "check", "key": "decide-key"}, "bad_field"),
        ({"type": "decide", "decision": None, "key": "decide-key"}, "bad_field"),
        ({"type": "decide", "decision": "call"}, "missing_idempotency_key"),
    ],
)
def test_a_field_of_the_wrong_kind_is_refused_with_its_code(frame, code):
    refusal = parse(frame)
    assert isinstance(refusal, Refusal), refusal
    assert refusal.code == code and refusal.message


def test_an_error_echoes_the_frames_key():
    assert parse({**WAGER, "ante": 5.5}).key == "wager-key-1"
