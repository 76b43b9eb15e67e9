"""The room's one amount rule, key rule, query-string rules and JSON reader (config.inputs)."""

import json
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from config.errors import Refused
from config.inputs import (
    MAX_CENTS,
    MAX_JSON_DEPTH,
    BadInput,
    parse_cents,
    parse_idempotency_key,
    parse_json_object,
    parse_query_date,
    parse_query_id,
    parse_query_page,
)
from tests.config.json_values import JSON_VALUES


class TableSaysNo(Refused):
    """A caller's own kind of refusal, as a service passes it."""


@given(JSON_VALUES, st.booleans())
def test_any_json_value_is_an_amount_in_range_or_bad_amount(value, text):
    try:
        cents = parse_cents(value, text=text)
    except BadInput as error:
        assert error.code == "bad_amount" and error.message
        assert len(error.message) < 200  # a 5,000-digit value is not echoed whole
    else:
        assert type(cents) is int and 1 <= cents <= MAX_CENTS


@pytest.mark.parametrize(
    "value",
    [
        0,
        -1,
        MAX_CENTS + 1,
        10**40,
        True,
        False,
        1.0,
        float("nan"),
        float("inf"),
        "100",  # a string is an amount only where text is expected
        None,
        [100],
        {"cents": 100},
    ],
    ids=repr,
)
def test_not_amounts(value):
    with pytest.raises(BadInput) as error:
        parse_cents(value)
    assert error.value.code == "bad_amount"


@pytest.mark.parametrize(
    "text",
    [
        "²",
        "1²",
        "٣",
        "\uff11\uff12",
        "1" * 5000,
        "12.50",
        "1e3",
        "-5",
        "+5",
        "0",
        "",
        " ",
        "0x10",
        "1_000",
    ],
    ids=repr,
)
def test_text_that_is_not_ascii_digits_is_refused(text):
    """str.isdigit() is true for "²", and int() refuses it; 5,000 digits pass isdigit and
    exceed Python's int-string limit: neither may reach int()."""
    with pytest.raises(BadInput) as error:
        parse_cents(text, text=True)
    assert error.value.code == "bad_amount"


def test_text_amounts_and_bounds():
    assert parse_cents(" 2500 ", text=True) == 2500
    assert parse_cents(str(MAX_CENTS), text=True) == MAX_CENTS
    assert parse_cents(1) == 1 and parse_cents(MAX_CENTS) == MAX_CENTS
    assert parse_cents(0, minimum=0) == 0
    assert parse_cents(-MAX_CENTS, minimum=-MAX_CENTS) == -MAX_CENTS
    with pytest.raises(BadInput, match=r"at most 100,000,000,000 cents \(\$1,000,000,000.00\)"):
        parse_cents(MAX_CENTS + 1)


def test_a_caller_gets_its_own_kind_of_refusal():
    with pytest.raises(TableSaysNo) as error:
        parse_cents("²", field="buy-in", text=True, error=TableSaysNo)
    assert error.value.code == "bad_amount" and "buy-in" in error.value.message
    with pytest.raises(TableSaysNo):
        parse_idempotency_key("a\x00b", error=TableSaysNo)


@pytest.mark.parametrize(
    ("key", "code"),
    [
        (None, "missing_idempotency_key"),
        ("", "missing_idempotency_key"),
        ("   ", "missing_idempotency_key"),
        (42, "bad_idempotency_key"),
        (["k"], "bad_idempotency_key"),
        ("k" * 101, "bad_idempotency_key"),
        ("click\x00001", "bad_idempotency_key"),  # PostgreSQL refuses NUL in text
        ("click\ud800001", "bad_idempotency_key"),  # a lone surrogate is not UTF-8
        ("click\n0001", "bad_idempotency_key"),
        ("click\x1b0001", "bad_idempotency_key"),
        ("click\u200b0001", "bad_idempotency_key"),  # invisible (format) characters
    ],
    ids=repr,
)
def test_bad_idempotency_keys(key, code):
    with pytest.raises(BadInput) as error:
        parse_idempotency_key(key)
    assert error.value.code == code and error.value.message


@pytest.mark.parametrize("key", ["k", "k" * 100, "3f2b9c1e-uuid", "mise à jour €", "a b"])
def test_good_idempotency_keys_come_back_as_they_are(key):
    assert parse_idempotency_key(key) == key


def test_key_length_bounds_are_the_callers():
    assert parse_idempotency_key("12345678", min_length=8, max_length=64) == "12345678"
    for key in ("1234567", "k" * 65):
        with pytest.raises(BadInput, match="8 to 64 characters"):
            parse_idempotency_key(key, field="key", min_length=8, max_length=64)


@given(JSON_VALUES)
def test_any_json_value_is_a_key_or_refused_with_a_key_code(value):
    try:
        key = parse_idempotency_key(value)
    except BadInput as error:
        assert error.code in {"missing_idempotency_key", "bad_idempotency_key"}
    else:
        assert key.isprintable() and 1 <= len(key) <= 100
        key.encode("utf-8")  # storable


@pytest.mark.parametrize(
    ("raw", "expected"), [(None, None), ("", None), ("7", 7), ("9223372036854775807", 2**63 - 1)]
)
def test_query_ids(raw, expected):
    assert parse_query_id(raw, name="account") == expected


@pytest.mark.parametrize("raw", ["²", "0", "-1", "1.0", "abc", "9223372036854775808", "1" * 5000])
def test_bad_query_ids(raw):
    with pytest.raises(BadInput) as error:
        parse_query_id(raw, name="account")
    assert error.value.code == "bad_parameter" and "'account'" in error.value.message


def test_query_dates():
    assert parse_query_date("2026-01-31", name="from") == date(2026, 1, 31)
    assert parse_query_date("", name="from") is None
    for raw in ("²", "2026-13-01", "9999-12-31", "yesterday", "\x00"):
        with pytest.raises(BadInput) as error:
            parse_query_date(raw, name="to")
        assert error.value.code == "bad_parameter"


def test_query_pages():
    assert parse_query_page(None) is None and parse_query_page("3") == 3
    for raw in ("²", "0", "-1", "1" * 5000, "x"):
        with pytest.raises(BadInput) as error:
            parse_query_page(raw)
        assert error.value.code == "bad_parameter"


def nested(depth: int) -> str:
    """An object holding lists `depth` levels deep in all."""
    return '{"a": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def test_json_objects_up_to_the_depth_limit_are_read():
    assert parse_json_object('{"amount": 5, "idempotency_key": "k"}') == {
        "amount": 5,
        "idempotency_key": "k",
    }
    assert parse_json_object(nested(MAX_JSON_DEPTH))["a"] is not None


@pytest.mark.parametrize(
    "text",
    [
        nested(MAX_JSON_DEPTH + 1),
        "[" * 1000 + "]" * 1000,
        '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",  # past Python's recursion limit
        "[1, 2]",
        '"hello"',
        "7",
        "null",
        "",
        "{",
        '{"amount": NaN}',
        '{"amount": Infinity}',
        '{"amount": ' + "1" * 5000 + "}",  # over Python's int-string limit
        b'{"a": "\xff"}',  # not UTF-8
    ],
    ids=lambda text: repr(text[:30]),
)
def test_json_that_is_not_one_sane_object_is_refused(text):
    with pytest.raises(BadInput) as error:
        parse_json_object(text, what="frame")
    assert error.value.code == "bad_json" and "frame" in error.value.message


@given(st.text(max_size=200) | JSON_VALUES.map(json.dumps))
def test_any_text_is_an_object_or_bad_json(text):
    try:
        document = parse_json_object(text)
    except BadInput as error:
        assert error.code == "bad_json"
    else:
        assert isinstance(document, dict)
