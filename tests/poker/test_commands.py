"""The table socket's commands (poker.commands): what each frame type becomes, and every field
refusal, decided without a socket, a table or a database. The frame's shape (JSON, size, type)
is tests/config/test_frames.py; one socket test per refusal class is test_consumer_input.py."""

import json

import pytest

from config.frames import Refusal
from config.inputs import MAX_CENTS
from poker.commands import (
    MAX_SEQ,
    Act,
    BigBlindChoice,
    Leave,
    ShowCards,
    Sit,
    SitIn,
    SitOut,
    TopUp,
    WaitingJoin,
    WaitingLeave,
    parse_table_frame,
)


def parse(frame: dict):
    return parse_table_frame(json.dumps(frame, allow_nan=True))


@pytest.mark.parametrize(
    ("frame", "command"),
    [
        (
            {"type": "act", "action": "raise", "amount": 350, "turn": 7, "seq": 12},
            Act("raise", 350, turn=7, seq=12),
        ),
        (
            {"type": "act", "action": "call", "amount": None, "turn": 8, "seq": 13},
            Act("call", None, 8, 13),
        ),
        (
            {"type": "act", "action": "check", "turn": 1, "seq": MAX_SEQ},
            Act("check", None, 1, MAX_SEQ),
        ),
        # The engine refuses actions it does not know (`unknown_action`), in the player's words.
        ({"type": "act", "action": "shove", "turn": 1, "seq": 1}, Act("shove", None, 1, 1)),
        # A forged seat, player or table is no field of an action: the server acts for the
        # socket's own user (the socket test shows the refusal that follows).
        (
            {"type": "act", "action": "call", "turn": 1, "seq": 1, "seat": 2, "player": 9},
            Act("call", None, 1, 1),
        ),
        (
            {"type": "sit", "seat": 3, "buy_in": 10000, "post_big_blind": False},
            Sit(seat_number=3, buy_in=10000, post_big_blind=False, key=None),
        ),
        (
            {"type": "sit", "seat": 3, "buy_in": 10000, "key": "click-0001"},
            Sit(seat_number=3, buy_in=10000, post_big_blind=False, key="click-0001"),
        ),
        ({"type": "sit_out"}, SitOut()),
        ({"type": "sit_in", "post_big_blind": True}, SitIn(True)),
        ({"type": "sit_in"}, SitIn(False)),
        ({"type": "post_big_blind"}, BigBlindChoice(post_now=True)),
        ({"type": "wait_big_blind"}, BigBlindChoice(post_now=False)),
        ({"type": "top_up", "amount": 2500}, TopUp(2500, None)),
        ({"type": "top_up", "amount": MAX_CENTS, "key": "k" * 64}, TopUp(MAX_CENTS, "k" * 64)),
        ({"type": "leave"}, Leave()),
        ({"type": "show_cards"}, ShowCards()),
        ({"type": "waiting_join"}, WaitingJoin()),
        ({"type": "waiting_leave"}, WaitingLeave()),
    ],
)
def test_each_frame_type_is_its_command(frame, command):
    assert parse(frame) == command


ACT = {"type": "act", "action": "call", "turn": 1, "seq": 1}
SIT = {"type": "sit", "seat": 2, "buy_in": 5000, "post_big_blind": False}
BAD_CENTS = ["²", "25", "1" * 40, 10**12, 99999999999999, 1e30, 0, -300, True, False, 2.5, 250.5]
NOT_WHOLE = ["one", "1", "", 1.5, 2.0, True, False, None, [], [1], {}]  # NaN: a bad_frame


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        # What the 17 socket tests of bad frames sent, and more.
        ({**ACT, "turn": "one"}, "bad_field"),
        ({**ACT, "action": 3}, "bad_field"),
        ({**ACT, "seq": True}, "bad_field"),
        ({**ACT, "action": "raise", "amount": -300}, "bad_amount"),
        ({**ACT, "action": "raise", "amount": 250.5}, "bad_amount"),
        ({**ACT, "action": "raise", "amount": 1e30}, "bad_amount"),
        ({**SIT, "buy_in": 99999999999999}, "bad_amount"),
        ({**SIT, "seat": "2"}, "bad_field"),
        ({**SIT, "post_big_blind": "yes"}, "bad_field"),
        ({"type": "top_up", "amount": 0}, "bad_amount"),
        *(({**ACT, name: value}, "bad_field") for name in ("turn", "seq") for value in NOT_WHOLE),
        *(({**ACT, name: value}, "bad_field") for name in ("turn", "seq") for value in (0, -1)),
        ({**ACT, "seq": MAX_SEQ + 1}, "bad_field"),
        ({**ACT, "seq": 10**30}, "bad_field"),
        *(({**ACT, "action": value}, "bad_field") for value in (None, 1, True, [], {})),
        *(
            ({k: v for k, v in ACT.items() if k != name}, "bad_field")
            for name in ("action", "turn", "seq")
        ),
        *(({**ACT, "action": "bet", "amount": value}, "bad_amount") for value in BAD_CENTS),
        *(({**SIT, "buy_in": value}, "bad_amount") for value in BAD_CENTS),
        *(({"type": "top_up", "amount": value}, "bad_amount") for value in [*BAD_CENTS, None]),
        *(({**SIT, "seat": value}, "bad_field") for value in NOT_WHOLE),
        *(({**SIT, "post_big_blind": v}, "bad_field") for v in (None, 0, 1, "true", [], {})),
        ({"type": "sit_in", "post_big_blind": 1}, "bad_field"),
        ({"type": "sit_in", "post_big_blind": "false"}, "bad_field"),
    ],
)
def test_a_field_of_the_wrong_kind_is_refused_with_its_code(frame, code):
    refusal = parse(frame)
    assert isinstance(refusal, Refusal), refusal
    assert refusal.code == code and refusal.message


@pytest.mark.parametrize(
    ("key", "code"),
    [
        ("click\u00000001", "bad_idempotency_key"),  # a NUL byte PostgreSQL would refuse
        ("click\ud800001", "bad_idempotency_key"),  # a lone surrogate, not storable as UTF-8
        ("click\n0001", "bad_idempotency_key"),
        ("short", "bad_idempotency_key"),
        ("k" * 65, "bad_idempotency_key"),
        (12345678, "bad_idempotency_key"),
        ([], "bad_idempotency_key"),
        ("", "missing_idempotency_key"),
        ("        ", "missing_idempotency_key"),
    ],
)
@pytest.mark.parametrize("frame", [SIT, {"type": "top_up", "amount": 1000}])
def test_a_money_frame_with_a_bad_key_is_refused(frame, key, code):
    refusal = parse({**frame, "key": key})
    assert isinstance(refusal, Refusal)
    assert refusal.code == code and refusal.message


def test_a_messages_value_is_cut_short():
    refusal = parse({**ACT, "seq": "9" * 3000})
    assert refusal.code == "bad_field" and len(refusal.message) < 120
