"""Cards and decks: the strict spelling, and the checks a dealt deck must pass."""

import secrets

import pytest

from poker.engine.cards import (
    FULL_DECK,
    card_rank,
    card_suit,
    is_card,
    parse_card,
    parse_cards,
    validate_deck,
)


def test_full_deck_is_52_distinct_cards_in_rank_then_suit_order():
    assert len(FULL_DECK) == 52
    assert len(set(FULL_DECK)) == 52
    assert FULL_DECK[:5] == ("2c", "2d", "2h", "2s", "3c")
    assert FULL_DECK[-1] == "As"


def test_ranks_and_suits_are_numbered_deuce_low_ace_high():
    assert card_rank("2c") == 0
    assert card_rank("As") == 12
    assert card_rank("Td") == 8
    assert [card_suit(card) for card in ("Ac", "Ad", "Ah", "As")] == [0, 1, 2, 3]


@pytest.mark.parametrize("bad", ["1s", "Ax", "10h", "", None, "as", "AS", " As", "As ", "A", 14])
def test_malformed_cards_are_rejected_naming_the_card(bad):
    assert not is_card(bad)
    with pytest.raises(ValueError, match="invalid card") as error:
        parse_card(bad)
    assert repr(bad) in str(error.value)


def test_unhashable_card_is_a_value_error_not_a_type_error():
    with pytest.raises(ValueError, match="invalid card"):
        parse_card(["A", "s"])


def test_parse_cards_accepts_a_sequence_or_one_string():
    assert parse_cards(["As", "Kd"]) == ("As", "Kd")
    assert parse_cards("AsKd") == ("As", "Kd")
    assert parse_cards("As Kd Qh") == ("As", "Kd", "Qh")


def test_parse_cards_rejects_duplicates_and_odd_strings():
    with pytest.raises(ValueError, match="duplicate card 'As'"):
        parse_cards(["As", "Kd", "As"])
    with pytest.raises(ValueError, match="cannot split"):
        parse_cards("AsK")
    with pytest.raises(ValueError, match="invalid card 'Kx'"):
        parse_cards("AsKx")


def test_validate_deck_accepts_any_order_of_the_52_cards():
    deck = list(FULL_DECK)
    secrets.SystemRandom().shuffle(deck)
    assert validate_deck(deck) == tuple(deck)


def test_validate_deck_rejects_short_long_duplicate_and_bad_decks():
    with pytest.raises(ValueError, match="52 cards, got 51"):
        validate_deck(FULL_DECK[:51])
    with pytest.raises(ValueError, match="52 cards, got 53"):
        validate_deck((*FULL_DECK, "As"))
    with pytest.raises(ValueError, match="duplicate card '2c'"):
        validate_deck((*FULL_DECK[:51], "2c"))
    with pytest.raises(ValueError, match="invalid card 'Zz'"):
        validate_deck((*FULL_DECK[:51], "Zz"))


def test_the_engine_never_imports_random():
    """Shuffling belongs to the CSPRNG outside the engine (RULES.md section 1).

    The one exception is `simulate`, the random-play tool: it builds its own seeded
    `random.Random` instance for simulation and never touches the module's global state.
    """
    import pathlib

    engine = pathlib.Path(parse_card.__code__.co_filename).parent
    for source in engine.glob("*.py"):
        text = source.read_text()
        if source.name == "simulate.py":
            assert "from random import Random\n" in text
            assert "import random\n" not in text, "simulate must not use the global random state"
            continue
        assert "import random" not in text, source
        assert "from random" not in text, source
