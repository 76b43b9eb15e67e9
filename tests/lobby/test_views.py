"""The lobby page lists every open table by game, with stakes, seats taken and a link."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.urls import reverse

from poker.models import Seat, Table
from poker.services import table_sit
from tests.factories import make_funded_player, make_player, make_table

pytestmark = pytest.mark.django_db


def _row(html: str, table) -> str:
    start = html.index(f'data-table="{table.pk}"')
    return html[start : html.index("</tr>", start)]


def test_the_lobby_groups_open_tables_by_game_with_seats_taken(client):
    omaha = make_table(name="Bering")
    hi_lo = make_table(
        name="Cortez",
        game=Table.Game.OMAHA8,
        structure=Table.Structure.LIMIT,
        small_blind=None,
        big_blind=None,
        small_bet=200,
        big_bet=400,
        max_seats=10,
    )
    make_table(name="Closed", is_open=False)
    later = make_table(
        name="Amundsen",
        structure=Table.Structure.LIMIT,
        small_blind=None,
        big_blind=None,
        small_bet=100,
        big_bet=200,
    )
    for number, name in ((1, "ann"), (4, "ben")):
        Seat.objects.create(table=omaha, number=number, player=make_player(name))

    html = client.get(reverse("lobby:home")).content.decode()

    assert html.index("Omaha High") < html.index("Bering")
    assert html.index("Omaha Hi/Lo 8 or Better") < html.index("Cortez")
    bering = _row(html, omaha)
    assert "$0.50/$1" in bering and "Pot limit" in bering and "2/6" in bering
    assert reverse("poker:table", args=[omaha.pk]) in bering
    assert "$50.00" in bering and "$100.00" in bering
    cortez = _row(html, hi_lo)
    assert "$2/$4" in cortez and "Fixed limit" in cortez and "0/10" in cortez
    assert "Closed" not in html
    # One heading per game, the later Omaha High table under the first one.
    assert html.count("<h2>Omaha High</h2>") == 1
    hi_lo_heading = html.index("<h2>Omaha Hi/Lo 8 or Better</h2>")
    assert html.index(_row(html, later)) < hi_lo_heading < html.index(_row(html, hi_lo))
    assert html.index(_row(html, omaha)) < hi_lo_heading


def test_an_empty_lobby_says_so(client):
    assert "No tables are open right now." in client.get(reverse("lobby:home")).content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_list_refreshes_when_a_seat_is_taken(signed_in_page):
    table = make_table(name="Bering")
    page = signed_in_page(make_player("ann"), {"width": 1280, "height": 800})
    try:
        page.goto("/")
        page.wait_for_selector("body[data-lobby='live']")
        assert page.inner_text(f'tr[data-table="{table.pk}"] .seats-taken') == "0/6"
        ben = make_funded_player("ben")

        def take_a_seat() -> None:
            try:
                table_sit(
                    table=table,
                    player=ben,
                    seat_number=2,
                    buy_in=10_000,
                    post_big_blind=False,
                    idempotency_key="lobby-browser-test",
                )
            finally:
                connection.close()  # this thread's own connection, so teardown can drop the db

        # Playwright's loop owns this thread; the service's broadcast runs from another one.
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(take_a_seat).result()
        page.wait_for_selector(f'tr[data-table="{table.pk}"] .seats-taken:text-is("1/6")')
        assert page.errors == []
    finally:
        page.context.close()
