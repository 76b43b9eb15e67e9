"""Fixtures for the banked game's tests: a funded player, a table, known decks."""

import pytest

from showdown import services
from tests.factories import make_funded_player, make_showdown_table, showdown_deck


@pytest.fixture
def gambler(db):
    """A player with $1,000 in the wallet."""
    return make_funded_player("gambler", cents=100_000)


@pytest.fixture
def showdown_table(db):
    return make_showdown_table()


@pytest.fixture
def next_deck(monkeypatch):
    """`next_deck(hole, board)`: the next round dealt gets these cards."""

    def set_deck(hole: str, board: str) -> None:
        deck = showdown_deck(hole, board)
        monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))

    return set_deck
