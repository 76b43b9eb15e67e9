"""The room's one socket frame reader (config.frames), on its own: no socket, no database.

Every refusal a socket can give before a service runs is decided here, so these tests are the
socket tests of the frame's shape; tests/poker/test_consumer_input.py keeps one socket test
that proves the consumers send what `parse_frame` answers and change nothing.
"""

import json
from dataclasses import fields

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from config.frames import (
    MAX_FRAME_BYTES,
    Ping,
    Refusal,
    Snapshot,
    parse_frame,
)
from config.inputs import MAX_CENTS
from lobby.commands import LOBBY, parse_lobby_frame
from poker.commands import MAX_SEQ, TABLE, parse_table_frame
from showdown.commands import SHOWDOWN, parse_showdown_frame
from tests.config.json_values import JSON_VALUES

PARSERS = {"table": parse_table_frame, "showdown": parse_showdown_frame, "lobby": parse_lobby_frame}
PROTOCOLS = {"table": TABLE, "showdown": SHOWDOWN, "lobby": LOBBY}


def nested(depth: int) -> str:
    return '{"type": "ping", "echo": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


# -- the frame's shape, the same on every socket

SHAPES = [
    ("not json", "not JSON"),
    ("", "empty"),
    ("[1, 2]", "a list"),
    ('"ping"', "a string"),
    ("null", "null"),
    ("{}", "no type"),
    ('{"type": 7}', "a number for type"),
    ('{"type": null}', "null for type"),
    ('{"type": ["ping"]}', "a list for type"),
    ('{"Type": "ping"}', "type misspelt"),
    ('{"type": "ping", "echo": NaN}', "NaN"),
    ('{"type": "ping", "echo": Infinity}', "Infinity"),
    ('{"type": "ping",}', "a trailing comma"),
    ("{'type': 'ping'}", "single quotes"),
    ("\ufeff" + '{"type": "ping"}', "a byte-order mark"),
    ('{"type": "ping"}\x00', "a NUL after"),
    ("[" * 1000 + "]" * 1000, "a list 1,000 deep"),
    (nested(1000), "an object 1,000 deep"),
    (nested(40), "an object 40 deep"),
    (json.dumps({"type": "ping", "pad": "x" * 5000}), "over 4 KiB"),
    # 1,400 characters but 4,200 bytes: the limit is on the wire, in UTF-8.
    (json.dumps({"type": "ping", "echo": "€" * 1400}, ensure_ascii=False), "over 4 KiB in UTF-8"),
    (None, "a binary frame"),
]


@pytest.mark.parametrize("socket", PARSERS)
@pytest.mark.parametrize(("raw", "why"), SHAPES, ids=[why for _, why in SHAPES])
def test_a_frame_of_the_wrong_shape_is_a_bad_frame_on_every_socket(socket, raw, why):
    refusal = PARSERS[socket](raw)
    assert isinstance(refusal, Refusal), why
    assert refusal.code == "bad_frame" and refusal.message
    assert refusal.frame() == {
        "type": "error",
        "code": "bad_frame",
        "message": refusal.message,
        "seq": None,
        "key": None,
    }


def test_the_size_limit_counts_utf8_bytes_and_lets_4_kib_through():
    ascii_frame = json.dumps({"type": "ping", "echo": "x" * 4000})
    assert len(ascii_frame.encode()) <= MAX_FRAME_BYTES
    assert parse_lobby_frame(ascii_frame) == Ping("x" * 4000)
    euros = json.dumps({"type": "ping", "echo": "€" * 1400}, ensure_ascii=False)
    assert len(euros) < MAX_FRAME_BYTES < len(euros.encode())
    assert "4 KiB" in parse_lobby_frame(euros).message
    deep_but_allowed = nested(32)
    assert parse_lobby_frame(deep_but_allowed) == Ping(json.loads(deep_but_allowed)["echo"])


@pytest.mark.parametrize(
    ("socket", "kind", "message"),
    [
        ("table", "steal_the_pot", "The table does not know 'steal_the_pot' frames."),
        ("table", "ACT", "The table does not know 'ACT' frames."),
        ("table", "act\x00", "The table does not know 'act\\x00' frames."),
        ("table", "__class__", "The table does not know '__class__' frames."),
        ("table", "table.update", "The table does not know 'table.update' frames."),
        ("showdown", "dance", "The table does not know 'dance' frames."),
        ("showdown", "act", "The table does not know 'act' frames."),
        ("lobby", "steal_chips", "The lobby does not know 'steal_chips' frames."),
        ("lobby", "snapshot", "The lobby does not know 'snapshot' frames."),
    ],
)
def test_a_type_the_socket_does_not_know_is_unknown_type(socket, kind, message):
    refusal = PARSERS[socket](json.dumps({"type": kind, "seq": 3}))
    assert (refusal.code, refusal.message, refusal.seq) == ("unknown_type", message, 3)


@pytest.mark.parametrize("socket", PARSERS)
def test_ping_is_answered_on_every_socket_with_any_echo(socket):
    assert PARSERS[socket]('{"type": "ping"}') == Ping(None)
    assert PARSERS[socket]('{"type": "ping", "echo": {"a": [1, "x"]}}') == Ping({"a": [1, "x"]})


def test_snapshot_is_a_command_of_the_two_tables_only():
    assert parse_table_frame('{"type": "snapshot"}') == Snapshot()
    assert parse_showdown_frame('{"type": "snapshot"}') == Snapshot()
    assert parse_lobby_frame('{"type": "snapshot"}').code == "unknown_type"


@pytest.mark.parametrize(
    ("raw", "seq", "key"),
    [
        ('{"type": "act", "action": 3, "turn": 1, "seq": 12}', 12, None),
        ('{"type": "act", "action": 3, "turn": 1, "seq": true}', None, None),
        ('{"type": "act", "action": 3, "turn": 1, "seq": 1.0}', None, None),
        ('{"type": "top_up", "amount": 0, "key": "click-0001"}', None, "click-0001"),
        ('{"type": "top_up", "amount": 0, "key": 12345678}', None, None),
        (json.dumps({"type": "top_up", "amount": 0, "key": "k" * 500}), None, "k" * 64),
    ],
)
def test_an_error_echoes_the_frames_seq_and_key_when_they_are_of_their_kind(raw, seq, key):
    refusal = parse_table_frame(raw)
    assert (refusal.seq, refusal.key) == (seq, key)


# -- the player's language

REFUSED_IN_EVERY_LANGUAGE = [
    "not json",
    "[1, 2]",
    '{"type": 7}',
    nested(40),
    json.dumps({"type": "ping", "pad": "x" * 5000}),
    '{"type": "dance"}',
    '{"type": "act", "action": 3, "turn": 1, "seq": 1}',
    '{"type": "act", "action": "call", "turn": 0, "seq": 1}',
    '{"type": "act", "action": "call", "turn": 1, "seq": 0}',
    '{"type": "sit", "seat": "2", "buy_in": 5000}',
    '{"type": "sit", "seat": 2, "buy_in": 5000, "post_big_blind": "yes"}',
    '{"type": "top_up", "amount": 0}',
    '{"type": "top_up", "amount": 500, "key": "short"}',
    '{"type": "top_up", "amount": 500, "key": ""}',
]


@pytest.mark.parametrize("language", ["fr", "ja"])
@pytest.mark.parametrize("raw", REFUSED_IN_EVERY_LANGUAGE)
def test_every_refusal_speaks_the_active_language_with_the_same_code(language, raw):
    with translation.override("en"):
        english = parse_table_frame(raw)
    with translation.override(language):
        translated = parse_table_frame(raw)
    assert translated.code == english.code
    assert translated.message != english.message, f"{raw!r} is refused in English in {language}"


# -- any text at all: a command of the socket's protocol with every field clean, or a refusal

KNOWN_TYPES = sorted({*TABLE.commands, *SHOWDOWN.commands, *LOBBY.commands})
FIELD_NAMES = [
    "action", "amount", "turn", "seq", "seat", "buy_in", "post_big_blind", "key", "echo",
    "ante", "hole_card_bonus", "final_hand_bonus", "decision", "player", "table",
]  # fmt: skip
FIELD_VALUES = (
    JSON_VALUES
    | st.integers(min_value=-2, max_value=MAX_CENTS + 2)
    | st.sampled_from(
        ["fold", "call", "raise", "check", "bet", "all_in", "click-0001", "k" * 64, "k" * 65]
    )
)
FRAMES = st.builds(
    lambda kind, body: json.dumps({"type": kind, **body}, allow_nan=True, ensure_ascii=False),
    st.sampled_from(KNOWN_TYPES) | JSON_VALUES,
    st.dictionaries(st.sampled_from(FIELD_NAMES), FIELD_VALUES, max_size=6),
)
ANY_TEXT = st.text() | st.text(alphabet='{}[]":,0123456789truefalsnl \\u') | FRAMES


def assert_clean(command) -> None:
    """Every field of a parsed command is of the kind its service takes: money in whole cents
    within bounds, counters positive, flags true booleans, keys printable and 8-64 long."""
    for field in fields(command):
        value = getattr(command, field.name)
        if field.name in ("amount", "buy_in", "ante"):
            assert value is None or (type(value) is int and 1 <= value <= MAX_CENTS), command
        elif field.name in ("hole_card_bonus", "final_hand_bonus"):
            assert type(value) is int and 0 <= value <= MAX_CENTS, command
        elif field.name == "turn":
            assert type(value) is int and value >= 1, command
        elif field.name == "seq":
            assert type(value) is int and 1 <= value <= MAX_SEQ, command
        elif field.name in ("seat", "seat_number"):
            assert type(value) is int, command
        elif field.name in ("post_big_blind", "post_now"):
            assert type(value) is bool, command
        elif field.name == "key":
            assert value is None or (8 <= len(value) <= 64 and value.isprintable()), command
        elif field.name in ("action", "decision"):
            assert type(value) is str, command


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(PROTOCOLS)), ANY_TEXT)
def test_any_text_parses_to_a_clean_command_or_a_refusal_and_never_raises(socket, raw):
    parsed = parse_frame(raw, PROTOCOLS[socket])
    if isinstance(parsed, Refusal):
        assert parsed.code and parsed.message
        json.dumps(parsed.frame())  # sendable as it is
        assert len(parsed.message) < 300  # a 4 KiB value is not echoed whole
    else:
        kind = json.loads(raw)["type"]
        assert kind in PROTOCOLS[socket].commands
        assert_clean(parsed)
