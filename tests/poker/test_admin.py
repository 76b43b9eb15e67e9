"""Staff pages of hands: a finished or cancelled hand shows its whole history as text; staff
find a hand by its id or a player's name; a table's edits must fit its seated players. (No
admin page shows a running hand's cards: tests/poker/test_admin_sweep.py.)"""

import pytest

from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat
from tests.factories import (
    GAMES,
    call_down,
    deal_hand,
    default_rake_schedule_row,
    make_seated_player,
    make_table,
)
from tests.factories import make_three_seated as seat_three
from tests.sweep import DECK, cards_in, fetch

pytestmark = pytest.mark.django_db


def money(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


HEADINGS = {
    "omaha-pot-limit": "Omaha High, Pot limit, blinds $0.50/$1.00.",
    "omaha8-limit": "Omaha Hi/Lo 8 or Better, Fixed limit, blinds $0.50/$1.00, bets $1.00/$2.00.",
}


@pytest.mark.parametrize("game", HEADINGS)
def test_a_finished_hand_shows_its_whole_history(staff, game):
    structure = GAMES[game].get("structure", "pot-limit")
    table = make_table(**GAMES[game], rake_schedule=default_rake_schedule_row(structure))
    players = seat_three(table)
    hand = call_down(deal_hand(table, DECK), players)
    assert hand.status == Hand.Status.FINISHED
    engine = EngineHand.from_dict(hand.state)
    result = engine.result
    page = fetch(staff, f"/admin/poker/hand/{hand.pk}/change/")
    names = {1: "ann", 2: "ben", 4: "cy"}

    assert HEADINGS[game] in page and f"Button: seat {engine.button}." in page
    for seat, cards in zip(engine.seats, engine.hole_cards, strict=True):
        assert f"Seat {seat} {names[seat]}: $100.00" in page
        assert f"Dealt to seat {seat} {names[seat]}: {' '.join(cards)}" in page
    assert "posts the small blind $0.50" in page and "posts the big blind $1.00" in page
    assert "calls $1.00" in page and "checks" in page
    board = engine.board
    for title in (f"Flop: {' '.join(board[:3])}", f"Turn: {' '.join(board[:4])}",
                  f"River: {' '.join(board)}"):  # fmt: skip
        assert f"<h3>{title}</h3>" in page
    for entry in result["showdown"]:
        who = f"Seat {entry['seat']} {names[entry['seat']]}"
        if entry["shown"]:
            shown = f"{who} shows {' '.join(entry['cards'])}: {entry['high']['name']}"
            if game == "omaha8-limit":
                shown += f"; low: {entry['low']['name'] if entry['low'] else 'none'}"
            assert f"<li>{shown}</li>" in page
        else:
            assert f"{who} mucks" in page
    assert f"Rake {money(result['rake'])}" in page
    (pot,) = result["pots"]
    if game == "omaha-pot-limit":  # $3 pays no rake in fixed limit (RULES.md 8)
        assert pot["rake"] > 0
        assert f"Main pot {money(pot['amount'])}, rake {money(pot['rake'])}: " in page
    else:
        assert f"Main pot {money(pot['amount'])}: " in page
    for side in ("high", "low"):
        for share in pot[side]:
            won = f"seat {share['seat']} {names[share['seat']]} wins {money(share['amount'])}"
            assert won + (f" ({side})" if game.startswith("omaha8") else "") in page
    for entry in result["seats"]:
        who = f"Seat {entry['seat']} {names[entry['seat']]}"
        net = ("+" if entry["net"] > 0 else "") + money(entry["net"])
        assert f"{who} ends with {money(entry['final_stack'])} ({net})" in page
    # The readable history, not the stored JSON: no burns, no undealt cards.
    assert cards_in(page) == set(board) | {card for cards in engine.hole_cards for card in cards}
    assert '"hole_cards"' not in page and "hole_cards_dealt" not in page


def test_a_cancelled_hand_shows_why_and_its_cards(staff):
    table = make_table()
    players = seat_three(table)
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    assert services.hand_cancel(hand=hand, reason="The dealer dropped the deck.", code="test")
    hand.refresh_from_db()
    engine = EngineHand.from_dict(hand.state)
    page = fetch(staff, f"/admin/poker/hand/{hand.pk}/change/")
    assert "Cancelled: The dealer dropped the deck.." not in page
    assert "Cancelled: The dealer dropped the deck." in page
    names = {1: "ann", 2: "ben", 4: "cy"}
    for seat, cards in zip(engine.seats, engine.hole_cards, strict=True):
        assert f"Dealt to seat {seat} {names[seat]}: {' '.join(cards)}" in page
    assert f"Flop: {' '.join(engine.board)}" in page

    # A stored hand without a log (none of its events was written) still opens, saying so and
    # showing nothing of it, not even the state it stored.
    broken = Hand.objects.create(
        table=table, number=hand.number + 1, status=Hand.Status.CANCELLED, deck=DECK,
        setup=hand.setup, state=hand.state,
    )  # fmt: skip
    page = fetch(staff, f"/admin/poker/hand/{broken.pk}/change/")
    assert "The stored events could not be read (ValueError)." in page and not cards_in(page)


def test_staff_find_a_hand_by_its_public_id_or_a_players_name(staff):
    table = make_table(name="Reef")  # no digit in the name: a number searches ids only
    players = seat_three(table)
    first = call_down(deal_hand(table, DECK), players)
    second = call_down(deal_hand(table, DECK), players)
    for term, wanted in ((f"%23{first.pk}", first), (str(second.pk), second)):
        page = fetch(staff, f"/admin/poker/hand/?q={term}")
        assert f"/admin/poker/hand/{wanted.pk}/change/" in page
        other = first if wanted is second else second
        assert f"/admin/poker/hand/{other.pk}/change/" not in page
    page = fetch(staff, "/admin/poker/hand/?q=ann")
    assert all(f"/admin/poker/hand/{h.pk}/change/" in page for h in (first, second))
    assert "/admin/poker/hand/" in fetch(staff, "/admin/poker/hand/?q=99999999999999999999999")


def test_table_edits_must_fit_the_seated_players():
    """No `max_seats` 2 with players in seats 4 and 6, no 0 seconds to act on a running
    table; stakes change only on an empty table."""
    from django.forms.models import model_to_dict

    from poker.admin_tools import MONEY_FIELDS, TableMoneyForm

    table = make_table()
    make_seated_player(table, "dee", 4)
    make_seated_player(table, "eve", 6)

    def edited(**changes):
        data = {k: v for k, v in model_to_dict(table).items() if v is not None}
        for name in MONEY_FIELDS:
            if data.get(name) is not None:
                data[name] = f"{data[name] / 100:.2f}"
        data.update(changes)
        return TableMoneyForm(data, instance=table)

    assert edited().is_valid(), edited().errors  # nothing changed: fine
    assert edited(name="Renamed", is_open=False).is_valid()
    too_few = edited(max_seats=2)
    assert not too_few.is_valid() and "max_seats" in too_few.errors
    no_time = edited(action_seconds=0)
    assert not no_time.is_valid() and "action_seconds" in no_time.errors
    stakes = edited(big_blind="2.00", small_blind="1.00")
    assert not stakes.is_valid() and "big_blind" in stakes.errors
    table.refresh_from_db()
    assert table.max_seats == 6 and table.action_seconds == 30
    # An empty table takes new stakes.
    Seat.objects.filter(table=table).delete()
    assert edited(big_blind="2.00", small_blind="1.00", max_seats=2).is_valid()
