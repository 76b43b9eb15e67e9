"""No admin page, list, search, URL filter or log line shows a running hand's hole cards or
deck to staff (a superuser, or staff who may only view the poker models); once the flop is
dealt, the hand's page shows the board and nothing else of it."""

import logging

import pytest

from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandIncident
from tests.factories import call_down, deal_hand, make_table
from tests.factories import make_three_seated as seat_three
from tests.sweep import DECK, cards_in, fetch, search_guesses, staff_pages, without_echo

pytestmark = pytest.mark.django_db


def test_no_staff_page_search_or_log_shows_a_running_hands_cards(staff, caplog):
    caplog.set_level(logging.DEBUG)
    table = make_table()
    seat_three(table)
    hand = deal_hand(table, DECK)  # preflop, before anyone acts: all 52 cards are hidden
    assert hand.deck == DECK and hand.status == Hand.Status.RUNNING
    HandIncident.objects.create(
        hand=hand, table=table, code="looked_into", reason="a player asked", detail={"turn": 1}
    )

    for url in staff_pages(hand):
        assert not cards_in(fetch(staff, url)), url
    page = fetch(staff, f"/admin/poker/hand/{hand.pk}/change/")
    assert "Dealt to seat 1 ann: hidden" in page and "posts the big blind $1.00" in page

    # Searching the hands for a card finds none of them (staff search by table name), so no
    # answer tells the cards apart; no list shows a card but the one searched for.
    for card in search_guesses(hand):
        page = fetch(staff, f"/admin/poker/hand/?q={card}")
        assert not cards_in(without_echo(page, card)), card
        assert f"/admin/poker/hand/{hand.pk}/change/" not in page
        for url in ("/admin/poker/seat/", "/admin/poker/handincident/", "/admin/poker/table/"):
            assert not cards_in(without_echo(fetch(staff, f"{url}?q={card}"), card)), (url, card)

    # Nor can the list be filtered by the fields that hold cards.
    for lookup in ("deck__0", "deck__contains", "setup__deck__0", "state__hole_cards__0__0"):
        for card in (DECK[0], DECK[1]):
            response = staff.get(f"/admin/poker/hand/?{lookup}={card}")
            assert response.status_code == 400, (lookup, response.status_code)

    logged = [record.getMessage() for record in caplog.records]
    assert logged and not cards_in("\n".join(logged))


def test_the_board_shows_once_dealt_and_no_hole_card_or_burn(staff):
    """Also the admin half of tests/poker/test_hidden_cards.py's sweep: the same hand (three
    seats, `DECK`, played to the flop), read here with the stricter check."""
    table = make_table()
    players = seat_three(table)
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    engine = EngineHand.from_dict(hand.state)
    assert len(engine.board) == 3
    pages = staff_pages(hand)
    assert f"/admin/poker/hand/{hand.pk}/change/" in pages
    for url in pages:
        page = fetch(staff, url)
        if url == f"/admin/poker/hand/{hand.pk}/change/":
            assert cards_in(page) == set(engine.board), url
            assert f"Flop: {' '.join(engine.board)}" in page
            assert "Seat 4 cy calls $1.00" in page
        else:
            assert not cards_in(page), url
