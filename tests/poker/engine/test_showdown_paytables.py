"""Omaha Showdown's paytables as data (RULES.md 9): the tables of RULES.md, and the checks a
staff-edited table must pass."""

import json

import pytest

from poker.engine.showdown_paytables import (
    BET,
    CATEGORIES,
    PAYTABLES,
    Paytable,
    PaytableError,
    ShowdownPaytables,
    default_paytables,
    paytable,
)


def test_rules_tables_are_all_there_with_unique_names():
    names = [table.name for table in PAYTABLES]
    assert names == ["bet", *(f"hcb-{x}" for x in "abcde"), *(f"fhb-{x}" for x in "abcde")]
    assert dict(BET.pays) == {
        "royal flush": 25,
        "straight flush": 20,
        "four of a kind": 15,
        "full house": 3,
        "flush": 3,
        "straight": 2,
        "three of a kind": 1,
    }
    hole_card_bonus = {
        "a": (100, 50, 12, 10, 7, 4, 1),
        "b": (100, 50, 10, 9, 7, 5, 1),
        "c": (100, 50, 10, 8, 6, 5, 1),
        "d": (100, 50, 8, 7, 6, 5, 1),
        "e": (100, 50, 7, 7, 5, 5, 1),
    }
    for letter, pays in hole_card_bonus.items():
        assert tuple(paytable(f"hcb-{letter}").pays.values()) == pays
    for letter, quads in zip("abcde", (60, 55, 50, 45, 40), strict=True):
        assert tuple(paytable(f"fhb-{letter}").pays.values()) == (200, 100, quads, 5, 2)


def test_default_tables_for_a_new_table():
    tables = default_paytables()
    assert (tables.bet.name, tables.hole_card_bonus.name, tables.final_hand_bonus.name) == (
        "bet",
        "hcb-a",
        "fhb-a",
    )


def valid(kind="hole_card_bonus"):
    return dict(paytable({"bet": "bet", "hole_card_bonus": "hcb-a"}.get(kind, "fhb-a")).pays)


@pytest.mark.parametrize(
    ("kind", "change", "message"),
    [
        ("bet", {"royal flush": 26}, "top award of 25"),
        ("hole_card_bonus", {"four of a kind": 101}, "top award of 100"),
        ("final_hand_bonus", {"royal flush": 201}, "top award of 200"),
        ("final_hand_bonus", {"flush": -1}, "whole number"),
        ("hole_card_bonus", {"one pair": 1.5}, "whole number"),
        ("hole_card_bonus", {"one pair": "1"}, "whole number"),
        ("hole_card_bonus", {"one pair": True}, "whole number"),
        ("hole_card_bonus", {"one pair": None}, "whole number"),
        ("hole_card_bonus", {"royal flush": 5}, "unknown category"),  # not a hole category
        ("final_hand_bonus", {"straight": 1}, "unknown category"),
        ("bet", {"two pair": 1}, "unknown category"),
    ],
)
def test_bad_lines_are_refused(kind, change, message):
    pays = valid(kind) | change
    with pytest.raises(PaytableError, match=message):
        Paytable(kind, "staff-edit", pays)


def test_every_line_must_be_listed():
    pays = valid("final_hand_bonus")
    del pays["full house"]
    with pytest.raises(PaytableError, match="does not say what 'full house' pays"):
        Paytable("final_hand_bonus", "staff-edit", pays)


@pytest.mark.parametrize(
    ("kind", "name", "message"),
    [
        ("side_bet", "x", "unknown paytable kind"),
        ("bet", "", "needs a name"),
        ("bet", "   ", "needs a name"),
        ("bet", "x" * 41, "at most 40"),
    ],
)
def test_bad_kinds_and_names_are_refused(kind, name, message):
    with pytest.raises(PaytableError, match=message):
        Paytable(kind, name, valid("bet"))


def test_a_checked_table_cannot_be_changed_afterwards():
    pays = valid()
    table = Paytable("hole_card_bonus", "staff-edit", pays)
    pays["four of a kind"] = 10_000  # the caller's dict is not the table's
    assert table.pays["four of a kind"] == 100
    with pytest.raises(TypeError):
        table.pays["four of a kind"] = 10_000  # type: ignore[index]


def test_zero_pays_and_lower_tops_are_allowed():
    pays = dict.fromkeys(CATEGORIES["final_hand_bonus"], 0)
    assert Paytable("final_hand_bonus", "push-only", pays).top_award == 0


def test_tables_round_trip_as_plain_data():
    for table in PAYTABLES:
        assert Paytable.from_dict(json.loads(json.dumps(table.to_dict()))) == table
    tables = default_paytables()
    assert ShowdownPaytables.from_dict(json.loads(json.dumps(tables.to_dict()))) == tables
    with pytest.raises(PaytableError):
        Paytable.from_dict({"kind": "bet", "name": "bet"})


def test_a_round_plays_one_table_of_each_kind():
    with pytest.raises(PaytableError, match="hole_card_bonus must be a hole_card_bonus paytable"):
        ShowdownPaytables(bet=BET, hole_card_bonus=paytable("fhb-a"), final_hand_bonus=BET)


def test_unknown_table_names_are_refused():
    with pytest.raises(PaytableError, match="no paytable named 'hcb-f'"):
        paytable("hcb-f")
