"""The lobby page lists every open table by game, with stakes, seats taken and a link."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.urls import reverse

from poker.models import Seat, Table
from poker.services import table_sit
from tests.factories import make_funded_player, make_player, make_seated_player, make_table

pytestmark = pytest.mark.django_db


def hi_lo_limit_table(name: str):
    """A full-ring fixed-limit Omaha Hi/Lo table at $2/$4."""
    return make_table(
        name=name,
        game=Table.Game.OMAHA8,
        structure=Table.Structure.LIMIT,
        small_blind=None,
        big_blind=None,
        small_bet=200,
        big_bet=400,
        max_seats=10,
    )


def _row(html: str, table) -> str:
    start = html.index(f'data-table="{table.pk}"')
    return html[start : html.index("</tr>", start)]


def test_the_lobby_groups_open_tables_by_game_with_seats_taken(client):
    omaha = make_table(name="Bering")
    hi_lo = hi_lo_limit_table("Cortez")
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
    # Seats taken with no chips at the table (no buy-in): seated, but nobody can play.
    assert "$0.50/$1" in bering and "Pot limit" in bering and ">0/6<" in bering
    assert "· 2 sitting out" in bering
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


def test_the_lobby_shows_who_can_play_and_who_sits_out_apart(client):
    from poker import services

    table = make_table(name="Bering")
    players = {seat: make_seated_player(table, name, seat) for seat, name in enumerate(
        ("ann", "ben", "cy", "dee"), start=1)}  # fmt: skip
    services.table_sit_out(table=table, player=players[4])
    row = _row(client.get(reverse("lobby:home")).content.decode(), table)
    assert ">3/6<" in row and "· 1 sitting out" in row and 'data-sort-players="3"' in row
    french = client.get(reverse("lobby:home"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "· 1 absent" in _row(french, table)


def test_a_live_showdown_table_counts_the_players_with_its_page_open(client):
    """It showed 3/7 after all three players had closed their tabs (issue 38)."""
    from showdown.models import LiveSeat
    from tests.factories import make_showdown_table

    live = make_showdown_table(name="Live Seven", seats=7)
    for number, name in enumerate(("ann", "ben", "cy"), start=1):
        LiveSeat.objects.create(
            table=live, number=number, player=make_player(name), connected=name == "ann"
        )
    html = client.get(reverse("lobby:home")).content.decode()
    start = html.index(f'data-banked-table="{live.pk}"')
    row = html[start : html.index("</tr>", start)]
    assert ">1/7<" in row and "· 2 sitting out" in row and 'data-sort-players="1"' in row
    assert 'data-empty="0"' in row  # seats are still taken


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


def test_the_lobby_shows_each_tables_last_hour(client):
    """Hands per hour, the average pot and players per flop, from the hands
    finished in the last hour."""
    from datetime import timedelta

    from django.utils import timezone

    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand
    from poker.selectors import table_stats
    from tests.factories import call_down, deal_hand, make_seated_player

    table = make_table(name="Figures", next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"fig{n}", n) for n in (1, 2, 3)}
    assert "\u2013" in _row(client.get(reverse("lobby:home")).content.decode(), table)  # no figure
    call_down(deal_hand(table), players)  # all three see the flop: a pot of 3 big blinds
    hand = deal_hand(table)
    first = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table, player=players[first], action="fold", amount=None, turn=1, seq=1
    )
    call_down(hand, players)  # two see the flop: a pot of 2 big blinds
    old = deal_hand(table)
    call_down(old, players)
    Hand.objects.filter(pk=old.pk).update(ended_at=timezone.now() - timedelta(hours=2))

    figures = table_stats(table_ids=[table.pk])[table.pk]
    assert figures == {"hands_per_hour": 2, "average_pot": 250, "players_per_flop": 83}
    row = _row(client.get(reverse("lobby:home")).content.decode(), table)
    assert "$2.50" in row and "83%" in row
    assert 'class="wide amount hands-per-hour">2<' in row


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_visitor_filters_the_live_lobby(chromium, asgi_server):
    """No account needed; filters hide rows and survive a live refresh."""
    from tests.poker.table_page import beside_the_browser, horizontal_overflow, screenshot

    bering = make_table(name="Bering")
    cortez = hi_lo_limit_table("Cortez")
    context = chromium.new_context(viewport={"width": 1366, "height": 768}, base_url=asgi_server)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto("/")
        page.wait_for_selector("body[data-lobby='live']")
        row = lambda table: f'tr[data-table="{table.pk}"]'  # noqa: E731
        page.select_option("#lobby-filters select[name=game]", "omaha8")
        assert page.is_hidden(row(bering)) and page.is_visible(row(cortez))
        page.select_option("#lobby-filters select[name=game]", "")
        page.check("#lobby-filters input[name=hide_empty]")
        assert page.is_hidden(row(bering)) and page.is_hidden(row(cortez))
        assert page.is_visible("#filters-none")
        # A player sits at Bering: the visitor's lobby refreshes and shows it, filters kept.
        ben = make_funded_player("ben")
        beside_the_browser(
            table_sit,
            table=bering,
            player=ben,
            seat_number=2,
            buy_in=10_000,
            post_big_blind=False,
            idempotency_key="visitor-lobby-test",
        )
        page.wait_for_selector(f'{row(bering)} .seats-taken:text-is("1/6")')
        assert page.is_visible(row(bering)) and page.is_hidden(row(cortez))
        page.reload()
        assert page.is_checked("#lobby-filters input[name=hide_empty]")  # kept
        assert page.is_hidden(row(cortez))
        screenshot(page, "lobby-visitor-laptop")
        page.set_viewport_size({"width": 390, "height": 844})
        page.uncheck("#lobby-filters input[name=hide_empty]")
        screenshot(page, "lobby-visitor-phone")
        assert horizontal_overflow(page) <= 0
        page.click("nav a[href='/help/']")
        page.click("a[href='/help/omaha-hi-lo-fixed-limit/']")
        page.wait_for_selector("#rake")
        screenshot(page, "help-phone")
        assert horizontal_overflow(page) <= 0
        assert errors == []
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_lobby_columns_sort_and_showdown_tables_answer_to_the_filters(chromium, asgi_server):
    """A header sorts the lists (again: the other way), the order and the
    filters are kept across visits, and the Omaha Showdown tables follow the same filters."""
    from showdown.models import LiveSeat
    from tests.factories import make_showdown_table
    from tests.poker.table_page import horizontal_overflow, screenshot

    make_table(name="Aral", small_blind=25, big_blind=50)
    make_table(name="Baikal", small_blind=100, big_blind=200)
    hi_lo = hi_lo_limit_table("Caspian")
    live = make_showdown_table(name="Live Seven", seats=7)
    LiveSeat.objects.create(table=live, number=1, player=make_player("sam"), connected=True)
    make_showdown_table(name="Live Empty", seats=7)
    online = make_showdown_table(name="Solo")
    context = chromium.new_context(viewport={"width": 1366, "height": 768}, base_url=asgi_server)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    high = "#lobby-tables table:has(th) >> nth=0"
    names = lambda: page.eval_on_selector_all(  # noqa: E731
        "#lobby-tables .game-group:first-child tbody tr",
        "rows => rows.map(r => r.dataset.sortName)",
    )
    banked = lambda: page.eval_on_selector_all(  # noqa: E731
        "#lobby-banked tr[data-banked-table]:not([hidden])",
        "rows => rows.map(r => r.dataset.sortName)",
    )
    try:
        page.goto("/")
        assert page.is_visible(high)
        page.click("#lobby-tables .game-group:first-child th[data-sort=stakes] button")
        assert names()[:2] == ["Aral", "Baikal"]
        assert (
            page.get_attribute(
                "#lobby-tables .game-group:first-child th[data-sort=stakes]", "aria-sort"
            )
            == "ascending"
        )
        page.click("#lobby-tables .game-group:first-child th[data-sort=stakes] button")
        assert names()[:2] == ["Baikal", "Aral"]
        page.click("#lobby-banked th[data-sort=players] button")
        page.click("#lobby-banked th[data-sort=players] button")
        assert banked()[0] == "Live Seven"  # the most players first

        page.select_option("#lobby-filters select[name=game]", "showdown")
        assert page.is_hidden(f'tr[data-table="{hi_lo.pk}"]') and page.is_hidden("#lobby-tables")
        assert set(banked()) >= {"Live Seven", "Solo"}
        page.select_option("#lobby-filters select[name=size]", "full")
        assert "Live Seven" in banked() and "Solo" not in banked()
        page.check("#lobby-filters input[name=hide_empty]")
        assert banked() == ["Live Seven"]  # not the empty live table
        page.select_option("#lobby-filters select[name=game]", "")
        assert page.is_hidden(f'tr[data-table="{hi_lo.pk}"]')  # empty too
        page.select_option("#lobby-filters select[name=game]", "omaha8")
        assert page.is_hidden("#lobby-banked") and page.is_visible("#filters-none")

        page.reload()  # a later visit: the same filters and order
        assert page.input_value("#lobby-filters select[name=game]") == "omaha8"
        assert page.is_hidden("#lobby-banked")
        page.select_option("#lobby-filters select[name=game]", "")
        page.select_option("#lobby-filters select[name=size]", "")
        page.uncheck("#lobby-filters input[name=hide_empty]")
        # One order for every list on the page: the last header clicked, players, most first.
        assert (
            page.get_attribute(
                "#lobby-tables .game-group:first-child th[data-sort=players]", "aria-sort"
            )
            == "descending"
        )
        assert banked()[0] == "Live Seven" and online.name in banked()
        screenshot(page, "lobby-sorted-laptop")
        page.set_viewport_size({"width": 390, "height": 844})
        assert horizontal_overflow(page) <= 0
        screenshot(page, "lobby-sorted-phone")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize(
    ("slug", "hi_lo", "pot_limit"),
    [
        ("omaha-high-fixed-limit", False, False),
        ("pot-limit-omaha", False, True),
        ("omaha-hi-lo-fixed-limit", True, False),
        ("omaha-hi-lo-pot-limit", True, True),
    ],
)
def test_each_game_has_a_rules_page_with_the_rooms_figures(client, slug, hi_lo, pot_limit):
    """Timing, disconnection and ratholing policy, the rake table, odd chips
    and showdown, per game; the figures come from the code (Table defaults, the rake data)."""
    import re

    html = client.get(reverse("lobby:help_game", args=[slug])).content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "You have 30 seconds to act: 10 seconds, then a 20-second countdown" in text
    assert "20 seconds more for you to come back" in text
    assert "Then comes your time bank: 20 extra seconds" in text
    assert "gives back 1 second, up to 20" in text
    assert "After 10 minutes you are removed" in text
    assert "within 30 minutes" in text and "after 5 such returns today" in text
    assert "odd chips go one at a time clockwise" in text
    assert ("Hi/Lo 8 or better" in text) == hi_lo
    assert ("Pot limit: the smallest bet is the big blind" in text) == pot_limit
    assert ("One bet and three raises per betting round" in text) == (not pot_limit)
    if pot_limit:
        assert "5¢ per whole dollar in the pot, at most $3.00" in text
    else:
        assert "pot $5.00: $0.50, pot $12.00: $0.75, pot $20.00: $1.00" in text
        assert "$2.00 to under $15.00" in text and "$15.00 and up" in text


def test_the_rules_index_lists_every_game_and_a_table_links_its_own(client):
    html = client.get(reverse("lobby:help")).content.decode()
    for slug in ("omaha-high-fixed-limit", "pot-limit-omaha", "omaha-hi-lo-fixed-limit"):
        assert reverse("lobby:help_game", args=[slug]) in html
    assert client.get("/help/seven-card-stud/").status_code == 404
    table = make_table(game=Table.Game.OMAHA8)
    client.force_login(make_player("reader"))
    page = client.get(reverse("poker:table", args=[table.pk])).content.decode()
    assert reverse("lobby:help_game", args=["omaha-hi-lo-pot-limit"]) in page
